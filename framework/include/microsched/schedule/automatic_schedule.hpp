// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file automatic_schedule.hpp
//! The state behind pool_strategy::automatic: one calibration (calibration.hpp) per program,
//! policy, GPU and problem size class, shared by every scheduler of the process, so the cost is
//! paid once. A run either launches the chosen schedule or times the next candidate with a pair
//! of CUDA events, which the next run of that class reads.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <typeinfo>
#include <vector>

#include "microsched/config.hpp"
#include "microsched/schedule/calibration.hpp"
#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched::detail {

//! One size class's calibration and its pending measurement. Shared by schedulers; guarded by
//! its mutex.
struct calibration_state {
  explicit calibration_state(std::vector<schedule_arguments> candidates)
      : tuning(std::move(candidates)) {}
  ~calibration_state();
  calibration_state(const calibration_state&) = delete;
  calibration_state& operator=(const calibration_state&) = delete;

  //! Reads the pending measurement into `tuning`; true when none is pending afterwards. With
  //! `wait` false it does not block: a run still in flight stays pending.
  bool collect(bool wait = true);
  //! Records the start event before a timed run of `tasks` tasks on `stream`.
  void start(int candidate, task_id tasks, cudaStream_t stream);
  //! Records the stop event after it.
  void stop(cudaStream_t stream);
  //! Times `launch()` on `stream` with the events and waits for it: milliseconds (at least the
  //! events' resolution). Nothing may be pending.
  template <class Launch>
  double time_run(cudaStream_t stream, Launch&& launch) {
    start(-1, 1, stream);  // pending stays -1: the caller reads the time here
    launch();
    stop(stream);
    return wait_elapsed();
  }
  //! Waits for the stop event and returns the time since the start event.
  double wait_elapsed();

  std::mutex mutex;
  calibration tuning;
  cudaEvent_t start_event = nullptr;
  cudaEvent_t stop_event = nullptr;
  int pending = -1;  //!< candidate whose run the events time, -1 for none
  task_id pending_tasks = 0;
  bool from_file = false;  //!< the choice came from a calibration file, not from runs here
};

//! The process-wide state of `key` (program, policy, device) and the size class of `num_tasks`,
//! created with `candidates` on first use.
[[nodiscard]] std::shared_ptr<calibration_state> calibration_for(
    const std::string& key, task_id num_tasks, const std::vector<schedule_arguments>& candidates);

//! Every decided choice of the process: (key, size class, schedule), for save_calibrations().
[[nodiscard]] std::vector<std::tuple<std::string, int, schedule_arguments>> decided_calibrations();

//! Makes `chosen` the choice of `key` and `size_class` unless the process already calibrated it
//! (load_calibrations()).
void seed_calibration(const std::string& key, int size_class, const schedule_arguments& chosen);

//! Forgets every calibration of the process (tests); schedulers that exist keep the states they
//! hold.
void forget_calibrations();

template <class Program, class Policy>
[[nodiscard]] std::string automatic_key(const std::string& device) {
  return std::string(typeid(Program).name()) + "|" + typeid(Policy).name() + "|" + device;
}

class automatic_schedule {
 public:
  void configure(std::string key, std::vector<schedule_arguments> candidates) {
    key_ = std::move(key);
    candidates_ = std::move(candidates);
  }

  //! Does not wait for a timed run in flight (its time is read later).
  [[nodiscard]] schedule_arguments schedule_for(task_id num_tasks) const {
    const auto state = state_for(num_tasks);
    std::lock_guard lock(state->mutex);
    (void)state->collect(false);
    return state->tuning.candidate(state->tuning.next());
  }

  //! The choice for this size class is made (reads a pending measurement first).
  [[nodiscard]] bool decided(task_id num_tasks) const {
    const auto state = state_for(num_tasks);
    std::lock_guard lock(state->mutex);
    state->collect();
    return state->tuning.decided();
  }

  [[nodiscard]] std::string report(task_id num_tasks) const {
    const auto state = state_for(num_tasks);
    std::lock_guard lock(state->mutex);
    state->collect();
    if (state->from_file) {
      return "automatic: " + to_string(state->tuning.candidate(0)) + " (from a calibration file)";
    }
    return "automatic: " + state->tuning.report();
  }

  //! Launches through `launch(schedule)`: the chosen schedule, or the next candidate, timed. A
  //! candidate that throws std::invalid_argument (it cannot launch here) is dropped with the
  //! reason and the direct mapping runs instead.
  template <class Launch>
  void run(task_id num_tasks, cudaStream_t stream, Launch&& launch) {
    const auto state = state_for(num_tasks);
    std::lock_guard lock(state->mutex);
    calibration& tuning = state->tuning;
    // Calibrating: wait for the previous timed run, whose time decides what runs next.
    if (!tuning.decided()) (void)state->collect();
    // Decided: never block the host, and put no event before most launches. A timed run in
    // flight is read after this launch, while the kernel runs.
    const bool timed = state->pending < 0 && tuning.next_run_timed();
    if (!timed) {
      launch(tuning.candidate(tuning.chosen()));
      (void)state->collect(false);
      return;
    }
    const int candidate = tuning.next();
    state->start(candidate, num_tasks, stream);
    try {
      launch(tuning.candidate(candidate));
    } catch (const std::invalid_argument& e) {
      state->pending = -1;
      if (tuning.decided()) throw;  // the chosen schedule itself cannot run: the caller's error
      tuning.fail(candidate, e.what());
      launch(tuning.candidate(0));
      return;
    } catch (...) {
      state->pending = -1;  // no stop event follows: nothing to read at the next run
      throw;
    }
    state->stop(stream);
  }

  //! Once decided: times `runs` runs of the choice through `launch(schedule)`, each waited for,
  //! and restarts the calibration if the fastest is off its calibrated time
  //! (calibration::check_choice).
  template <class Launch>
  void check_choice(task_id num_tasks, cudaStream_t stream, Launch&& launch, int runs) {
    const auto state = state_for(num_tasks);
    std::lock_guard lock(state->mutex);
    (void)state->collect();
    calibration& tuning = state->tuning;
    if (!tuning.decided()) return;
    double fastest = 0;
    for (int r = 0; r < runs; ++r) {
      const double ms = state->time_run(stream, [&] { launch(tuning.candidate(tuning.chosen())); });
      fastest = r == 0 ? ms : std::min(fastest, ms);
    }
    if (runs > 0) tuning.check_choice(fastest, num_tasks);
  }

 private:
  //! The shared state of this size class, looked up in the registry once per scheduler.
  [[nodiscard]] std::shared_ptr<calibration_state> state_for(task_id num_tasks) const {
    const int k = size_class(num_tasks);
    auto& slot = states_[k];
    if (!slot) slot = calibration_for(key_, num_tasks, candidates_);
    return slot;
  }

  std::string key_;
  std::vector<schedule_arguments> candidates_;
  mutable std::map<int, std::shared_ptr<calibration_state>> states_;  //!< (size class) -> state
};

}  // namespace microsched::detail
