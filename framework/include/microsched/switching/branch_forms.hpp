// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file branch_forms.hpp
//! The forms a managed-branch program runs in, and the automatic choice among them (host logic,
//! tested on the CPU). A form is a march window, a task order and a schedule: the direct mapping
//! (one thread per task, the branches divergent: the user's own kernel) or context switching on
//! task pools. The march window and the order are the program's knobs (windowed_program,
//! ordered_program); they change neither the results nor the work, only which lanes of a warp
//! reach the managed branch together, which is what makes a hand-tuned vanilla kernel fast.

#include <concepts>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched::switching {

//! A program whose step marches up to a march window of cheap iterations before its managed
//! branch, stopping at the first that needs it; the march window changes no result.
template <class P>
concept windowed_program = requires(const P& p, int w) {
  { p.with_march_window(w) } -> std::same_as<P>;
};

//! A program that can take its tasks in several orders (0 .. task_orders() - 1; some may be
//! unavailable for a size); the order changes no result.
template <class P>
concept ordered_program = requires(const P& p, int k) {
  { p.task_orders() } -> std::convertible_to<int>;
  { p.has_task_order(k) } -> std::convertible_to<bool>;
  { p.with_task_order(k) } -> std::same_as<P>;
  { P::task_order_name(k) } -> std::convertible_to<const char*>;
};

//! One candidate of the automatic switching schedule.
struct branch_form {
  int march_window = 0;           //!< 0: the program's own
  int order = -1;                 //!< task order; -1: the program's own
  schedule_arguments schedule{};  //!< direct, strided, or a pool strategy (switching)
  [[nodiscard]] bool direct() const { return is_direct_form(schedule.strategy); }
  friend bool operator==(const branch_form&, const branch_form&) = default;
};

//! What the candidate list is built from.
struct branch_form_options {
  //! March windows of the direct forms: a hand-tuned vanilla marches tens to hundreds of samples.
  std::vector<int> direct_march_windows{16, 64, 256};
  //! March windows of the switching forms: a short one keeps the votes frequent.
  std::vector<int> switching_march_windows{16, 32};
  //! A non-direct form is kept only when it is faster than the best direct form by this
  //! fraction: the choice is never slower than the best direct form beyond noise.
  double margin = 0.02;
  //! After the first round (every form once, those that may still win twice, the faster run
  //! kept), the forms within a band of the fastest (and the fastest direct form) are timed
  //! `final_runs` more times: the band is four times the timing noise, at least twice the
  //! margin and at most this fraction (form_calibration::finalist_band()).
  double keep_within = 0.15;
  int final_runs = 3;
  //! Reads and writes the calibration cache (schedule/calibration_file.hpp); false: every choice
  //! is made in this process and kept in it, as a harness that compares it with the forms it
  //! timed needs.
  bool cache = true;
  //! Once decided, a timed run of the choice this far off its time (either way), two runs in a
  //! row, and off by at least drift_floor_ms, means the work changed: the choice is checked
  //! against its rival and made again where it no longer wins (as the termination scheduler's).
  double drift = 1.25;
  double drift_floor_ms = 0.05;
};

//! The options that shape a choice, as text: automatic_switching objects with equal texts share
//! a size class's choice in progress.
[[nodiscard]] inline std::string options_text(const branch_form_options& o) {
  std::string t("direct");
  const auto add = [&t](const char* name, const std::string& value) {
    t.append(name).append(value);  // appends: GCC 12 warns about operator+ on a temporary here
  };
  const auto exact = [](double v) {  // every bit: options that differ never share a choice
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", v);
    return std::string(text);
  };
  for (const int w : o.direct_march_windows) add(" ", std::to_string(w));
  t.append(" switching");
  for (const int w : o.switching_march_windows) add(" ", std::to_string(w));
  add(" margin ", exact(o.margin));
  add(" within ", exact(o.keep_within));
  add(" runs ", std::to_string(o.final_runs));
  add(" drift ", exact(o.drift));
  add(" floor ", exact(o.drift_floor_ms));
  return t;
}

//! Checks the options; throws std::invalid_argument naming the bad value.
inline void validate(const branch_form_options& o) {
  const auto bad = [](const std::string& what, const std::string& value, const char* why) {
    throw std::invalid_argument(what + " = " + value + ": " + why);
  };
  if (o.direct_march_windows.empty()) {
    bad("direct march windows", "(none)", "name at least one march window");
  }
  for (const int w : o.direct_march_windows) {
    if (w < 1 || w > 4096) bad("direct march window", std::to_string(w), "must be in 1..4096");
  }
  for (const int w : o.switching_march_windows) {
    if (w < 1 || w > 4096) bad("switching march window", std::to_string(w), "must be in 1..4096");
  }
  if (!(o.margin >= 0.0 && o.margin < 0.5)) {
    bad("margin", std::to_string(o.margin), "must be in [0, 0.5)");
  }
  if (!(o.keep_within >= 0.0 && o.keep_within <= 10.0)) {
    bad("keep within", std::to_string(o.keep_within), "must be in [0, 10]");
  }
  if (!(o.drift > 1.0 && o.drift <= 100.0)) {
    bad("drift", std::to_string(o.drift), "must be in (1, 100]");
  }
  if (!(o.drift_floor_ms >= 0.0 && o.drift_floor_ms <= 1e6)) {
    bad("drift floor", std::to_string(o.drift_floor_ms) + " ms", "must be in [0, 1e6]");
  }
  if (o.final_runs < 1 || o.final_runs > 100) {
    bad("final runs", std::to_string(o.final_runs), "must be in 1..100");
  }
}

//! The switching schedules the automatic list tries: hybrid pools on the policy's automatic
//! grid, last parked first (long tasks, many per lane); and grabs of 4 tasks with rings, so
//! that a run holding nearly every task at once does not end with a tail of lone contexts.
[[nodiscard]] inline std::vector<schedule_arguments> switching_schedules() {
  schedule_arguments stacks;
  stacks.strategy = pool_strategy::hybrid;
  stacks.chunk = 32;
  schedule_arguments rings = stacks;
  rings.chunk = 4;
  rings.switching.fifo = true;
  return {stacks, rings};
}

//! The candidates: the direct mapping in both forms at each direct march window and each
//! available order, then the switching schedules at each switching march window and order.
//! `windowed` and `orders` (the available ones; empty: the program's own only) describe the
//! program.
[[nodiscard]] inline std::vector<branch_form> branch_forms(bool windowed,
                                                           const std::vector<int>& orders,
                                                           const branch_form_options& o) {
  validate(o);
  const std::vector<int> own_order{-1};
  const std::vector<int>& order_list = orders.empty() ? own_order : orders;
  const std::vector<int> own_window{0};
  std::vector<branch_form> list;
  for (const int order : order_list) {
    for (const int w : windowed ? o.direct_march_windows : own_window) {
      for (const pool_strategy s : {pool_strategy::direct, pool_strategy::strided}) {
        branch_form f;
        f.march_window = w;
        f.order = order;
        f.schedule.strategy = s;
        list.push_back(f);
      }
    }
  }
  for (const int order : order_list) {
    for (const int w :
         windowed && !o.switching_march_windows.empty() ? o.switching_march_windows : own_window) {
      for (const auto& s : switching_schedules()) {
        branch_form f;
        f.march_window = w;
        f.order = order;
        f.schedule = s;
        list.push_back(f);
      }
    }
  }
  return list;
}

//! The index of the fastest direct form (ms < 0: not timed; none timed: -1).
[[nodiscard]] inline int fastest_direct(const std::vector<branch_form>& forms,
                                        const std::vector<double>& ms) {
  int best = -1;
  for (std::size_t i = 0; i < forms.size() && i < ms.size(); ++i) {
    if (ms[i] < 0 || !forms[i].direct()) continue;
    if (best < 0 || ms[i] < ms[static_cast<std::size_t>(best)]) best = static_cast<int>(i);
  }
  return best;
}

//! The choice: the fastest form, unless it is not direct and does not beat the fastest direct
//! form by `margin`; then that direct form. -1 when nothing was timed.
[[nodiscard]] inline int choose_form(const std::vector<branch_form>& forms,
                                     const std::vector<double>& ms, double margin) {
  int best = -1;
  for (std::size_t i = 0; i < forms.size() && i < ms.size(); ++i) {
    if (ms[i] < 0) continue;
    if (best < 0 || ms[i] < ms[static_cast<std::size_t>(best)]) best = static_cast<int>(i);
  }
  const int direct = fastest_direct(forms, ms);
  if (best < 0 || direct < 0 || forms[static_cast<std::size_t>(best)].direct()) return best;
  const bool clear_win =
      ms[static_cast<std::size_t>(best)] < ms[static_cast<std::size_t>(direct)] * (1.0 - margin);
  return clear_win ? best : direct;
}

//! The forms timed again after the first round: within `keep_within` of the fastest, and the
//! fastest direct form whatever its time (the rule compares against it).
[[nodiscard]] inline std::vector<int> finalists(const std::vector<branch_form>& forms,
                                                const std::vector<double>& ms, double keep_within) {
  double fastest = -1;
  for (std::size_t i = 0; i < forms.size() && i < ms.size(); ++i) {
    if (ms[i] >= 0 && (fastest < 0 || ms[i] < fastest)) fastest = ms[i];
  }
  std::vector<int> kept;
  if (fastest < 0) return kept;
  const int direct = fastest_direct(forms, ms);
  for (std::size_t i = 0; i < forms.size() && i < ms.size(); ++i) {
    if (ms[i] < 0) continue;
    if (ms[i] <= fastest * (1.0 + keep_within) || static_cast<int>(i) == direct) {
      kept.push_back(static_cast<int>(i));
    }
  }
  return kept;
}

//! The form's knobs as the calibration cache names them: "w64 o2" (w0: the program's own march
//! window; o-1: its own order).
[[nodiscard]] inline std::string form_key(const branch_form& f) {
  std::string key = "w";  // built in place: "w" + to_string(...) trips GCC 12's -Wrestrict
  key += std::to_string(f.march_window);
  key += " o";
  key += std::to_string(f.order);
  return key;
}

//! How the cache names a choice: its knobs, and for a switching form the fastest direct form it
//! beat, which a later process times it against before keeping it: "w16 o0 vs w256 o2 strided".
[[nodiscard]] inline std::string cached_form_text(const branch_form& choice,
                                                  const branch_form& fastest_direct) {
  if (choice.direct()) return form_key(choice);
  return form_key(choice) + " vs " + form_key(fastest_direct) + " " +
         to_string(fastest_direct.schedule.strategy);
}

//! A cached choice found in a candidate list: its index and, for a switching form, the index of
//! the direct form to time it against.
struct cached_form {
  int choice = -1;
  int reference = -1;
};

//! Finds a choice that cached_form_text() named, with `schedule`, in `forms`; `choice` is -1
//! where the list lacks it or its reference (another candidate list, an order this size lacks).
[[nodiscard]] inline cached_form find_cached_form(const std::vector<branch_form>& forms,
                                                  const std::string& text,
                                                  const schedule_arguments& schedule) {
  const auto find = [&](auto&& matches) {
    for (std::size_t i = 0; i < forms.size(); ++i) {
      if (matches(forms[i])) return static_cast<int>(i);
    }
    return -1;
  };
  const std::size_t vs = text.find(" vs ");
  const std::string knobs = text.substr(0, vs);
  cached_form found;
  found.choice = find([&](const branch_form& f) {
    return f.schedule == schedule && form_key(f) == knobs &&
           f.direct() == (vs == std::string::npos);
  });
  if (found.choice < 0 || vs == std::string::npos) return found;
  const std::string reference = text.substr(vs + 4);
  found.reference = find([&](const branch_form& f) {
    return f.direct() && form_key(f) + " " + to_string(f.schedule.strategy) == reference;
  });
  if (found.reference < 0) found.choice = -1;
  return found;
}

//! "direct w64 order 3", "switching hybrid chunk=4 fifo w16 order 0".
[[nodiscard]] inline std::string to_string(const branch_form& f, const char* order_name = nullptr) {
  std::string s = f.direct() ? to_string(f.schedule.strategy)
                             : "switching " + to_string(f.schedule.strategy) +
                                   " chunk=" + std::to_string(f.schedule.chunk) +
                                   (f.schedule.switching.fifo ? " fifo" : " lifo");
  if (f.march_window > 0) s += " w" + std::to_string(f.march_window);
  if (order_name != nullptr) {
    s += std::string(" ") + order_name;
  } else if (f.order >= 0) {
    s += " order " + std::to_string(f.order);
  }
  return s;
}

//! The program as form `f` runs it: the form's march window and order applied where the program has
//! those knobs.
template <class Program>
[[nodiscard]] Program program_for(const Program& program, const branch_form& f) {
  Program p = program;
  if constexpr (windowed_program<Program>) {
    if (f.march_window > 0) p = p.with_march_window(f.march_window);
  }
  if constexpr (ordered_program<Program>) {
    if (f.order >= 0) p = p.with_task_order(f.order);
  }
  return p;
}

//! The task orders `program` offers at its size (empty when it has no order knob).
template <class Program>
[[nodiscard]] std::vector<int> available_orders(const Program& program) {
  std::vector<int> orders;
  if constexpr (ordered_program<Program>) {
    for (int k = 0; k < program.task_orders(); ++k) {
      if (program.has_task_order(k)) orders.push_back(k);
    }
  }
  return orders;
}

//! The form's name with the program's name of its order.
template <class Program>
[[nodiscard]] std::string form_name(const branch_form& f) {
  if constexpr (ordered_program<Program>) {
    if (f.order >= 0) return to_string(f, Program::task_order_name(f.order));
  }
  return to_string(f);
}

}  // namespace microsched::switching
