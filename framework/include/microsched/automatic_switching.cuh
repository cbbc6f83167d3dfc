// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file automatic_switching.cuh
//! The automatic schedule of a managed-branch program: times its forms (branch_forms.hpp: the
//! direct mapping at several march windows and task orders, the form a hand-tuned vanilla kernel
//! takes, and context switching on task pools) on the first runs of a size and keeps the
//! fastest, a switching form only when it beats the fastest direct form beyond noise.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "microsched/error.hpp"
#include "microsched/policy/switching_policy.cuh"
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
  //! Throws std::invalid_argument for bad options.
  explicit automatic_switching(const branch_form_options& options = {}) : options_(options) {
    validate(options_);
  }
  automatic_switching(const automatic_switching&) = delete;
  automatic_switching& operator=(const automatic_switching&) = delete;
  ~automatic_switching() {
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stop_ != nullptr) cudaEventDestroy(stop_);
  }

  //! Runs every task in [0, num_tasks) once. While the choice for this size is open the run is
  //! one timed run of the next form (waited for); a new size starts the choice again.
  void run(const Program& program, task_id num_tasks, cudaStream_t stream = nullptr) {
    if (num_tasks == 0) return;
    if (num_tasks != tasks_ || forms_.empty()) start(program, num_tasks);
    if (chosen_ >= 0) {
      launch(static_cast<std::size_t>(chosen_), program, stream);
      return;
    }
    time_next(program, stream);
  }

  //! Runs the program until the choice for this size is made (every run processes every task:
  //! for benchmarks and warm-ups, where running the tasks again is harmless), then waits.
  void calibrate(const Program& program, task_id num_tasks, cudaStream_t stream = nullptr) {
    if (num_tasks == 0) return;
    if (num_tasks != tasks_ || forms_.empty()) start(program, num_tasks);
    while (chosen_ < 0) time_next(program, stream);
    MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
  }

  [[nodiscard]] bool decided() const { return chosen_ >= 0; }
  [[nodiscard]] const std::vector<branch_form>& forms() const { return forms_; }
  //! The chosen form; throws std::logic_error before the choice.
  [[nodiscard]] const branch_form& choice() const {
    if (chosen_ < 0) throw std::logic_error("automatic switching: no choice made yet");
    return forms_[static_cast<std::size_t>(chosen_)];
  }
  //! The fastest direct form timed (the rule's reference); throws before the choice.
  [[nodiscard]] const branch_form& best_direct() const {
    const int d = fastest_direct(forms_, best_ms_);
    if (chosen_ < 0 || d < 0) throw std::logic_error("automatic switching: no choice made yet");
    return forms_[static_cast<std::size_t>(d)];
  }
  //! GPU time of the timed runs so far (what the choice cost, useful work included).
  [[nodiscard]] double calibration_ms() const { return calibration_ms_; }

  //! The choice and its reference, what the choice cost, and each form's time.
  [[nodiscard]] std::string report() const {
    if (forms_.empty()) return "automatic switching: not run yet";
    char line[160];
    std::string r = "automatic switching: ";
    if (chosen_ < 0) {
      r += "choosing";
    } else {
      const int d = fastest_direct(forms_, best_ms_);
      std::snprintf(line, sizeof(line), "%s (%.3f ms); fastest direct form %s (%.3f ms)",
                    form_name<Program>(choice()).c_str(),
                    best_ms_[static_cast<std::size_t>(chosen_)],
                    d >= 0 ? form_name<Program>(forms_[static_cast<std::size_t>(d)]).c_str() : "-",
                    d >= 0 ? best_ms_[static_cast<std::size_t>(d)] : 0.0);
      r += line;
    }
    std::snprintf(line, sizeof(line), "; %d timed runs, %.2f ms on the GPU; forms:", runs_,
                  calibration_ms_);
    r += line;
    for (std::size_t i = 0; i < forms_.size(); ++i) {
      if (best_ms_[i] >= 0) {
        std::snprintf(line, sizeof(line), " [%s %.3f]", form_name<Program>(forms_[i]).c_str(),
                      best_ms_[i]);
      } else {
        std::snprintf(line, sizeof(line), " [%s %s]", form_name<Program>(forms_[i]).c_str(),
                      failed_[i].empty() ? "-" : "cannot run");
      }
      r += line;
    }
    return r;
  }

 private:
  using sched_t = scheduler<Program, Policy>;

  void start(const Program& program, task_id num_tasks) {
    if (start_ == nullptr) {
      MICROSCHED_CUDA_TRY(cudaEventCreate(&start_));
      MICROSCHED_CUDA_TRY(cudaEventCreate(&stop_));
    }
    tasks_ = num_tasks;
    forms_ = branch_forms(windowed_program<Program>, available_orders(program), options_);
    best_ms_.assign(forms_.size(), -1.0);
    samples_.assign(forms_.size(), {});
    failed_.assign(forms_.size(), std::string());
    queue_.clear();
    // Round one: every form twice (the first run may load its kernel), the faster run kept.
    for (std::size_t i = 0; i < forms_.size(); ++i) {
      queue_.push_back(static_cast<int>(i));
      queue_.push_back(static_cast<int>(i));
    }
    next_ = 0;
    round_ = 1;
    chosen_ = -1;
    runs_ = 0;
    calibration_ms_ = 0;
  }

  //! The scheduler of a form's schedule, made on first use (one per distinct schedule).
  sched_t& scheduler_for(std::size_t form) {
    const schedule_arguments& s = forms_[form].schedule;
    for (std::size_t i = 0; i < schedules_.size(); ++i) {
      if (schedules_[i] == s) return *schedulers_[i];
    }
    schedulers_.push_back(std::make_unique<sched_t>(s));
    schedules_.push_back(s);
    return *schedulers_.back();
  }

  void launch(std::size_t form, const Program& program, cudaStream_t stream) {
    scheduler_for(form).run(program_for(program, forms_[form]), tasks_, stream);
  }

  void time_next(const Program& program, cudaStream_t stream) {
    if (next_ >= queue_.size()) next_round();
    if (chosen_ >= 0) {  // the last round ended without a run left: run the choice
      launch(static_cast<std::size_t>(chosen_), program, stream);
      return;
    }
    const auto form = static_cast<std::size_t>(queue_[next_++]);
    if (!failed_[form].empty()) return time_next(program, stream);
    try {
      (void)scheduler_for(form);
    } catch (const std::invalid_argument& e) {  // a pool that does not fit this GPU
      failed_[form] = e.what();
      return time_next(program, stream);
    }
    MICROSCHED_CUDA_TRY(cudaEventRecord(start_, stream));
    launch(form, program, stream);
    MICROSCHED_CUDA_TRY(cudaEventRecord(stop_, stream));
    MICROSCHED_CUDA_TRY(cudaEventSynchronize(stop_));
    float ms = 0;
    MICROSCHED_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    ++runs_;
    calibration_ms_ += ms;
    samples_[form].push_back(ms);
    if (next_ >= queue_.size()) next_round();
  }

  //! Round one's result picks the finalists; round two's median of the final runs decides.
  void next_round() {
    for (std::size_t i = 0; i < forms_.size(); ++i) best_ms_[i] = summary(samples_[i]);
    if (round_ == 1) {
      round_ = 2;
      queue_.clear();
      next_ = 0;
      const auto kept = finalists(forms_, best_ms_, options_.keep_within);
      for (const int i : kept) samples_[static_cast<std::size_t>(i)].clear();
      for (int r = 0; r < options_.final_runs; ++r) {
        for (const int i : kept) queue_.push_back(i);
      }
      if (!queue_.empty()) return;
      for (std::size_t i = 0; i < forms_.size(); ++i) best_ms_[i] = summary(samples_[i]);
    }
    chosen_ = choose_form(forms_, best_ms_, options_.margin);
    if (chosen_ < 0) {
      throw std::runtime_error("automatic switching: no form of the program could run (" +
                               (failed_.empty() ? std::string() : failed_.front()) + ")");
    }
  }

  //! Round one keeps the faster of a form's runs; round two the median.
  [[nodiscard]] double summary(std::vector<double> s) const {
    if (s.empty()) return -1.0;
    std::sort(s.begin(), s.end());
    return round_ == 1 ? s.front() : s[s.size() / 2];
  }

  branch_form_options options_;
  task_id tasks_ = 0;
  std::vector<branch_form> forms_;
  std::vector<double> best_ms_;
  std::vector<std::vector<double>> samples_;
  std::vector<std::string> failed_;
  std::vector<int> queue_;
  std::size_t next_ = 0;
  int round_ = 1;
  int chosen_ = -1;
  int runs_ = 0;
  double calibration_ms_ = 0;
  std::vector<schedule_arguments> schedules_;
  std::vector<std::unique_ptr<sched_t>> schedulers_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace microsched::switching
