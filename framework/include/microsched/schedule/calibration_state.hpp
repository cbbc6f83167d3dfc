// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file calibration_state.hpp
//! One size class's calibration as the automatic schedule shares it between schedulers: the
//! calibration, its CUDA events and the measurement they hold until the next run reads it.

#include <cuda_runtime_api.h>

#include <mutex>
#include <string>
#include <vector>

#include "microsched/config.hpp"
#include "microsched/schedule/calibration.hpp"
#include "microsched/schedule/schedule_arguments.hpp"
#include "microsched/schedule/step_counts.hpp"

namespace microsched::detail {

//! Waits for `stop` and returns the milliseconds since `start`; a run too short for the events'
//! resolution counts as their resolution, half a microsecond.
[[nodiscard]] double elapsed_run_ms(cudaEvent_t start, cudaEvent_t stop);

//! One size class's calibration and its pending measurement. Shared by schedulers; guarded by
//! its mutex.
struct calibration_state {
  explicit calibration_state(std::vector<schedule_arguments> candidates,
                             calibration_settings settings = {})
      : choice(std::move(candidates), settings) {}
  ~calibration_state();
  calibration_state(const calibration_state&) = delete;
  calibration_state& operator=(const calibration_state&) = delete;

  //! Reads the pending measurement into `choice`; true when none is pending afterwards. With
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
    return elapsed_run_ms(start_event, stop_event);
  }

  std::mutex mutex;
  calibration choice;  //!< the candidates, their times and the choice among them
  cudaEvent_t start_event = nullptr;
  cudaEvent_t stop_event = nullptr;
  int pending = -1;  //!< candidate whose run the events time, -1 for none
  task_id pending_tasks = 0;
  int adopted = -1;     //!< the candidate an earlier process chose (the cache), -1 for none
  std::string in_call;  //!< what timing slices of the first call found, for the report
  //! The choice is still the one an earlier process made: no calibration here has moved it.
  [[nodiscard]] bool from_file() const {
    return adopted >= 0 && choice.decided() && choice.chosen() == adopted && choice.restarts() == 0;
  }
  //! Nothing ran in this size class yet: its first call may time candidates on slices.
  [[nodiscard]] bool fresh() const {
    return adopted < 0 && in_call.empty() && pending < 0 && choice.runs() == 0 &&
           !choice.decided() && choice.restarts() == 0;
  }
  //! Events around the slices of one call (in_call_plan), created on first use.
  std::vector<cudaEvent_t> slice_events;
  //! The counted slice's steps (device memory), allocated on first use.
  step_counts* counts = nullptr;
};

}  // namespace microsched::detail
