// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file form_calibration.hpp
//! One size class's choice among a managed-branch program's forms (automatic_switching.cuh): the
//! form each timed run takes, the times, and the rounds that decide. Host logic, tested on the
//! CPU with scripted times.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "microsched/switching/branch_forms.hpp"

namespace microsched::switching {

struct form_calibration {
  //! A fresh choice over `list`: round one times every form twice (the first run may load its
  //! kernel) and keeps the faster run.
  explicit form_calibration(std::vector<branch_form> list) : forms(std::move(list)) {
    best_ms.assign(forms.size(), -1.0);
    samples.assign(forms.size(), {});
    failed.assign(forms.size(), std::string());
    for (std::size_t i = 0; i < forms.size(); ++i) {
      queue.push_back(static_cast<int>(i));
      queue.push_back(static_cast<int>(i));
    }
  }

  //! Starts from a cached choice: kept as it is where `reference` is -1 (a direct form); else
  //! round zero times it twice and `reference`, the direct form it beat, twice, since the
  //! program's data may have changed since.
  void adopt(int choice, int reference) {
    from_cache = true;
    queue.clear();
    next = 0;
    if (reference < 0) {
      chosen = choice;
      return;
    }
    round = 0;
    queue = {choice, choice, reference, reference};
  }

  //! The form the next timed run takes, skipping those that failed; -1 where the round's queue
  //! is spent (next_round() then ends it).
  [[nodiscard]] int upcoming() const {
    for (std::size_t i = next; i < queue.size(); ++i) {
      if (failed[static_cast<std::size_t>(queue[i])].empty()) return queue[i];
    }
    return -1;
  }
  //! Takes upcoming() off the queue.
  int take() {
    while (next < queue.size()) {
      const int form = queue[next++];
      if (failed[static_cast<std::size_t>(form)].empty()) return form;
    }
    return -1;
  }
  [[nodiscard]] bool round_done() const { return chosen < 0 && upcoming() < 0; }

  //! Once decided: a timed run of the choice. Two runs in a row off reference_ms by the drift
  //! factor and the floor start a check (recheck()); true when one starts. The first reading of a
  //! choice that was never timed (a cached direct form) becomes its reference.
  bool observe(double ms, const branch_form_options& o) {
    if (chosen < 0) return false;
    if (reference_ms <= 0) {
      reference_ms = ms;
      return false;
    }
    const bool off = (ms > reference_ms * o.drift || ms * o.drift < reference_ms) &&
                     std::abs(ms - reference_ms) > o.drift_floor_ms;
    drift_streak = off ? drift_streak + 1 : 0;
    if (drift_streak < 2) return false;
    recheck();
    return true;
  }

  //! The work changed under the choice: round zero times the choice twice and its rival twice (a
  //! switching choice's fastest direct form; a direct choice's fastest switching form), as for a
  //! cached choice; where no rival was timed, round one times every form again.
  void recheck() {
    const int was = chosen;
    const std::vector<double>& seen = first_ms.empty() ? best_ms : first_ms;
    const bool direct_choice = forms[static_cast<std::size_t>(was)].direct();
    int rival = -1;
    for (std::size_t i = 0; i < forms.size() && i < seen.size(); ++i) {
      if (seen[i] < 0 || forms[i].direct() == direct_choice) continue;  // the other kind
      if (rival < 0 || seen[i] < seen[static_cast<std::size_t>(rival)]) rival = static_cast<int>(i);
    }
    for (auto& s : samples) s.clear();
    best_ms.assign(forms.size(), -1.0);
    first_ms.clear();
    finalist.clear();
    chosen = -1;
    drift_streak = 0;
    reference_ms = -1;
    ++rechecks;
    next = 0;
    queue.clear();
    if (rival < 0) {
      round = 1;
      for (std::size_t i = 0; i < forms.size(); ++i) {
        queue.push_back(static_cast<int>(i));
        queue.push_back(static_cast<int>(i));
      }
      return;
    }
    round = 0;
    queue = {was, was, rival, rival};
  }

  //! Calls per timed run of a decided choice: the events' cost (`cost_ms` a timed run) stays
  //! under `share` of the choice's time.
  [[nodiscard]] int timed_every(double share, double cost_ms) const {
    if (reference_ms <= 0) return 1;
    const double every = std::ceil(cost_ms / (share * reference_ms));
    return every < 1 ? 1 : (every > 1e6 ? 1000000 : static_cast<int>(every));
  }

  //! `form` cannot run here (its pool does not fit): skipped from now on, `why` reported.
  void fail(int form, std::string why) { failed[static_cast<std::size_t>(form)] = std::move(why); }
  void record(int form, double ms) {
    samples[static_cast<std::size_t>(form)].push_back(ms);
    ++runs;
    calibration_ms += ms;
  }

  //! Ends the round whose queue is spent: round zero keeps the cached choice where it still beats
  //! its direct form by the margin, else round one times the other forms; round one keeps the
  //! finalists (finalists()); round two decides by the finalists' medians (choose_form()). True
  //! when this call made a new choice (for the cache). Throws std::runtime_error where no form
  //! could run.
  bool next_round(const branch_form_options& o) {
    for (std::size_t i = 0; i < forms.size(); ++i) {
      const bool compared = round < 2 || finalist[i];
      best_ms[i] = compared ? summary(samples[i], round) : -1.0;
    }
    if (round == 0) {
      const int cached = queue.front();
      if (choose_form(forms, best_ms, o.margin) == cached) {
        chosen = cached;
        reference_ms = best_ms[static_cast<std::size_t>(cached)];
        return false;
      }
      from_cache = false;
      round = 1;
      queue.clear();  // the forms not timed in round zero, twice each, as in a fresh round one
      next = 0;
      for (std::size_t i = 0; i < forms.size(); ++i) {
        if (!samples[i].empty()) continue;
        queue.push_back(static_cast<int>(i));
        queue.push_back(static_cast<int>(i));
      }
      if (!queue.empty()) return false;
    }
    if (round == 1) {
      round = 2;
      first_ms = best_ms;
      finalist.assign(forms.size(), false);
      for (const int i : finalists(forms, best_ms, o.keep_within)) {
        finalist[static_cast<std::size_t>(i)] = true;
        samples[static_cast<std::size_t>(i)].clear();
      }
      queue.clear();  // the finalists in turns, final_runs times
      next = 0;
      for (int r = 0; r < o.final_runs; ++r) {
        for (std::size_t i = 0; i < forms.size(); ++i) {
          if (finalist[i]) queue.push_back(static_cast<int>(i));
        }
      }
      if (!queue.empty()) return false;  // else no form ran: nothing to choose from
    }
    chosen = choose_form(forms, best_ms, o.margin);
    if (chosen >= 0) reference_ms = best_ms[static_cast<std::size_t>(chosen)];
    if (chosen < 0) {
      const auto why = std::find_if(failed.begin(), failed.end(),
                                    [](const std::string& w) { return !w.empty(); });
      throw std::runtime_error("automatic switching: no form of the program could run (" +
                               (why == failed.end() ? std::string() : *why) + ")");
    }
    return true;
  }

  //! The choice as the cache names it: its knobs and the fastest direct form timed
  //! (cached_form_text()). Only after the choice.
  [[nodiscard]] std::string cache_text() const {
    const int d = fastest_direct(forms, best_ms);
    return cached_form_text(forms[static_cast<std::size_t>(chosen)],
                            forms[static_cast<std::size_t>(d < 0 ? chosen : d)]);
  }

  std::vector<branch_form> forms;
  std::vector<double> best_ms;   //!< what the choice compares: round two's finalists only
  std::vector<double> first_ms;  //!< round one's times, for the report
  std::vector<bool> finalist;
  std::vector<std::vector<double>> samples;
  std::vector<std::string> failed;
  std::vector<int> queue;
  std::size_t next = 0;
  int round = 1;  //!< 0: a cached switching choice timed against its direct form
  int chosen = -1;
  int runs = 0;
  double calibration_ms = 0;
  bool from_cache = false;   //!< the choice comes from the calibration cache
  bool cached_here = false;  //!< from another automatic_switching of this process
  double reference_ms = -1;  //!< the choice's time that drift is measured against
  int drift_streak = 0;      //!< timed runs in a row off reference_ms
  int rechecks = 0;          //!< checks that drift started

 private:
  //! Rounds zero and one keep the faster of a form's runs (the first may load its kernel); round
  //! two the median.
  [[nodiscard]] static double summary(std::vector<double> s, int round) {
    if (s.empty()) return -1.0;
    std::sort(s.begin(), s.end());
    return round < 2 ? s.front() : s[s.size() / 2];
  }
};

}  // namespace microsched::switching
