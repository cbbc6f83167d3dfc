// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file automatic_switching.cuh
//! The automatic schedule of a managed-branch program: times its forms (branch_forms.hpp: the
//! direct mapping at several march windows and task orders, the form a hand-tuned vanilla kernel
//! takes, and context switching on task pools) on the first runs of a size class and keeps the
//! fastest, a switching form only when it beats the fastest direct form beyond noise. The choices
//! go to the calibration cache (schedule/calibration_file.hpp), so a later process starts decided.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "microsched/device.hpp"
#include "microsched/error.hpp"
#include "microsched/policy/switching_policy.cuh"
#include "microsched/schedule/automatic_schedule.hpp"
#include "microsched/scheduler.cuh"
#include "microsched/switching/branch_forms.hpp"

namespace microsched::switching {

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

template <class Program, class Policy = switching_policy<>>
class automatic_switching {
 public:
  automatic_switching() : automatic_switching(branch_form_options{}) {}
  //! Throws std::invalid_argument for bad options.
  explicit automatic_switching(const branch_form_options& options) : options_(options) {
    validate(options_);
  }
  automatic_switching(const automatic_switching&) = delete;
  automatic_switching& operator=(const automatic_switching&) = delete;
  ~automatic_switching() {
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stop_ != nullptr) cudaEventDestroy(stop_);
  }

  //! Runs every task in [0, num_tasks) once. While the choice for this size class (tasks in
  //! [2^(k-1), 2^k), as the termination scheduler's) is open the run is one timed run of the
  //! next form (waited for); each size class keeps its own choice. A size class an earlier
  //! process decided (the calibration cache) starts with its choice.
  void run(const Program& program, task_id num_tasks, cudaStream_t stream = nullptr) {
    if (num_tasks == 0) return;
    select(program, num_tasks);
    if (cur_->chosen >= 0) {
      launch(static_cast<std::size_t>(cur_->chosen), program, num_tasks, stream);
      return;
    }
    time_next(program, num_tasks, stream);
  }

  //! Runs the program until the choice for this size is made (every run processes every task:
  //! for benchmarks and warm-ups, where running the tasks again is harmless), then waits.
  void calibrate(const Program& program, task_id num_tasks, cudaStream_t stream = nullptr) {
    if (num_tasks == 0) return;
    select(program, num_tasks);
    while (cur_->chosen < 0) time_next(program, num_tasks, stream);
    MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
  }

  //! Of the size class run last (nothing before the first run).
  [[nodiscard]] bool decided() const { return cur_ != nullptr && cur_->chosen >= 0; }
  [[nodiscard]] const std::vector<branch_form>& forms() const {
    static const std::vector<branch_form> none;
    return cur_ != nullptr ? cur_->forms : none;
  }
  //! The chosen form; throws std::logic_error before the choice.
  [[nodiscard]] const branch_form& choice() const {
    if (!decided()) throw std::logic_error("automatic switching: no choice made yet");
    return cur_->forms[static_cast<std::size_t>(cur_->chosen)];
  }
  //! The choice came from the calibration cache: no form was timed in this process.
  [[nodiscard]] bool from_cache() const { return cur_ != nullptr && cur_->from_file; }
  //! The fastest direct form timed (the rule's reference); throws std::logic_error before the
  //! choice, or where the choice came from the cache (nothing timed).
  [[nodiscard]] const branch_form& best_direct() const {
    const int d = decided() ? fastest_direct(cur_->forms, cur_->best_ms) : -1;
    if (d < 0) {
      throw std::logic_error(from_cache() ? "automatic switching: no form was timed; the choice "
                                            "came from the calibration cache"
                                          : "automatic switching: no choice made yet");
    }
    return cur_->forms[static_cast<std::size_t>(d)];
  }
  //! GPU time of the size class's timed runs so far (what its choice cost, useful work included).
  [[nodiscard]] double calibration_ms() const { return cur_ != nullptr ? cur_->calibration_ms : 0; }

  //! The size class run last: the choice and its reference, what the choice cost, and each
  //! form's time.
  [[nodiscard]] std::string report() const {
    if (cur_ == nullptr) return "automatic switching: not run yet";
    const size_state& c = *cur_;
    char line[160];
    std::string r = "automatic switching: ";
    if (c.from_file) {
      return r + form_name<Program>(choice()) +
             " [chosen by an earlier process: " + detail::cache_origin() + "]";
    }
    if (c.chosen < 0) {
      r += "choosing";
    } else {
      const int d = fastest_direct(c.forms, c.best_ms);
      std::snprintf(line, sizeof(line), "%s (%.3f ms); fastest direct form %s (%.3f ms)",
                    form_name<Program>(choice()).c_str(),
                    c.best_ms[static_cast<std::size_t>(c.chosen)],
                    d >= 0 ? form_name<Program>(c.forms[static_cast<std::size_t>(d)]).c_str() : "-",
                    d >= 0 ? c.best_ms[static_cast<std::size_t>(d)] : 0.0);
      r += line;
    }
    std::snprintf(line, sizeof(line), "; %d timed runs, %.2f ms on the GPU; forms:", c.runs,
                  c.calibration_ms);
    r += line;
    for (std::size_t i = 0; i < c.forms.size(); ++i) {
      if (c.best_ms[i] >= 0) {
        std::snprintf(line, sizeof(line), " [%s %.3f]", form_name<Program>(c.forms[i]).c_str(),
                      c.best_ms[i]);
      } else {
        std::snprintf(line, sizeof(line), " [%s %s]", form_name<Program>(c.forms[i]).c_str(),
                      c.failed[i].empty() ? "-" : "cannot run");
      }
      r += line;
    }
    return r;
  }

 private:
  using sched_t = scheduler<Program, Policy>;

  //! One size class's choice: its forms, their times, the runs still to time.
  struct size_state {
    int size_class = 0;
    bool from_file = false;  //!< the choice came from the calibration cache
    std::vector<branch_form> forms;
    std::vector<double> best_ms;
    std::vector<std::vector<double>> samples;
    std::vector<std::string> failed;
    std::vector<int> queue;
    std::size_t next = 0;
    int round = 1;
    int chosen = -1;
    int runs = 0;
    double calibration_ms = 0;
  };

  //! Makes the size class of `num_tasks` the current one, starting its choice on first use.
  void select(const Program& program, task_id num_tasks) {
    const int k = size_class(num_tasks);
    const auto [it, fresh] = states_.try_emplace(k);
    cur_ = &it->second;
    if (!fresh) return;
    cur_->size_class = k;
    start(program, *cur_);
  }

  void start(const Program& program, size_state& c) {
    if (start_ == nullptr) {
      MICROSCHED_CUDA_TRY(cudaEventCreate(&start_));
      MICROSCHED_CUDA_TRY(cudaEventCreate(&stop_));
    }
    if (options_.cache && key_.empty()) {
      const device_info d = current_device();
      key_ = detail::automatic_key<Program, Policy>(detail::device_key(d.ordinal, d.name));
    }
    c.forms = branch_forms(windowed_program<Program>, available_orders(program), options_);
    c.best_ms.assign(c.forms.size(), -1.0);
    c.samples.assign(c.forms.size(), {});
    c.failed.assign(c.forms.size(), std::string());
    if (const auto earlier =
            options_.cache ? detail::earlier_form(key_, c.size_class) : std::nullopt) {
      c.chosen = find_form(c.forms, earlier->form, earlier->schedule);
      c.from_file = c.chosen >= 0;
      if (c.from_file) return;
    }
    // Round one: every form twice (the first run may load its kernel), the faster run kept.
    for (std::size_t i = 0; i < c.forms.size(); ++i) {
      c.queue.push_back(static_cast<int>(i));
      c.queue.push_back(static_cast<int>(i));
    }
  }

  //! The scheduler of a form's schedule, made on first use (one per distinct schedule).
  sched_t& scheduler_for(const schedule_arguments& s) {
    for (std::size_t i = 0; i < schedules_.size(); ++i) {
      if (schedules_[i] == s) return *schedulers_[i];
    }
    schedulers_.push_back(std::make_unique<sched_t>(s));
    schedules_.push_back(s);
    return *schedulers_.back();
  }

  void launch(std::size_t form, const Program& program, task_id num_tasks, cudaStream_t stream) {
    const branch_form& f = cur_->forms[form];
    scheduler_for(f.schedule).run(program_for(program, f), num_tasks, stream);
  }

  void time_next(const Program& program, task_id num_tasks, cudaStream_t stream) {
    size_state& c = *cur_;
    if (c.next >= c.queue.size()) next_round(c);
    if (c.chosen >= 0) {  // the last round ended without a run left: run the choice
      launch(static_cast<std::size_t>(c.chosen), program, num_tasks, stream);
      return;
    }
    const auto form = static_cast<std::size_t>(c.queue[c.next++]);
    if (!c.failed[form].empty()) return time_next(program, num_tasks, stream);
    try {
      (void)scheduler_for(c.forms[form].schedule);
    } catch (const std::invalid_argument& e) {  // a pool that does not fit this GPU
      c.failed[form] = e.what();
      return time_next(program, num_tasks, stream);
    }
    MICROSCHED_CUDA_TRY(cudaEventRecord(start_, stream));
    launch(form, program, num_tasks, stream);
    MICROSCHED_CUDA_TRY(cudaEventRecord(stop_, stream));
    MICROSCHED_CUDA_TRY(cudaEventSynchronize(stop_));
    float ms = 0;
    MICROSCHED_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    ++c.runs;
    c.calibration_ms += ms;
    c.samples[form].push_back(ms);
    if (c.next >= c.queue.size()) next_round(c);
  }

  //! Round one's result picks the finalists; round two's median of the final runs decides.
  void next_round(size_state& c) const {
    for (std::size_t i = 0; i < c.forms.size(); ++i) c.best_ms[i] = summary(c.samples[i], c.round);
    if (c.round == 1) {
      c.round = 2;
      c.queue.clear();
      c.next = 0;
      const auto kept = finalists(c.forms, c.best_ms, options_.keep_within);
      for (const int i : kept) c.samples[static_cast<std::size_t>(i)].clear();
      for (int r = 0; r < options_.final_runs; ++r) {
        for (const int i : kept) c.queue.push_back(i);
      }
      if (!c.queue.empty()) return;
      for (std::size_t i = 0; i < c.forms.size(); ++i) {
        c.best_ms[i] = summary(c.samples[i], c.round);
      }
    }
    c.chosen = choose_form(c.forms, c.best_ms, options_.margin);
    if (c.chosen < 0) {
      const auto why = std::find_if(c.failed.begin(), c.failed.end(),
                                    [](const std::string& w) { return !w.empty(); });
      throw std::runtime_error("automatic switching: no form of the program could run (" +
                               (why == c.failed.end() ? std::string() : *why) + ")");
    }
    const branch_form& f = c.forms[static_cast<std::size_t>(c.chosen)];
    if (options_.cache) {
      detail::cached_choice chosen;
      chosen.key = key_;
      chosen.size_class = c.size_class;
      chosen.form = form_key(f);
      chosen.schedule = f.schedule;
      detail::record_form(chosen);
    }
  }

  //! Round one keeps the faster of a form's runs; round two the median.
  [[nodiscard]] static double summary(std::vector<double> s, int round) {
    if (s.empty()) return -1.0;
    std::sort(s.begin(), s.end());
    return round == 1 ? s.front() : s[s.size() / 2];
  }

  branch_form_options options_;
  std::string key_;                   //!< program|policy|device|driver, the cache's key
  std::map<int, size_state> states_;  //!< by size class
  size_state* cur_ = nullptr;         //!< the size class run last
  std::vector<schedule_arguments> schedules_;
  std::vector<std::unique_ptr<sched_t>> schedulers_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace microsched::switching
