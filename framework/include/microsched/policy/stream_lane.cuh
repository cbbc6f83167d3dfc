#pragma once
//! @file stream_lane.cuh
//! One lane's state under the stream strategy (driver/stream_task_source.cuh): a run of tasks
//! that the lane works through on its own. When a task ends inside a window the lane ends it and
//! begins the next of its run at once; it idles only when the whole run is done. Short tasks
//! then cost a begin and an end each, with no ballot, atomic or wait for the warp between them.

#include "microsched/config.hpp"
#include "microsched/pool/lane_run.hpp"
#include "microsched/task_program.hpp"

namespace microsched::detail {

template <class Program>
class stream_lane {
  using context = typename Program::context;

 public:
  struct temp_storage {};

  template <class PolicyParams>
  __device__ __forceinline__ stream_lane(temp_storage&, const PolicyParams&, unsigned char*,
                                         unsigned, unsigned) {}

  //! This lane's run is done: the driver may refill it.
  [[nodiscard]] __device__ __forceinline__ bool empty() const { return left_ == 0; }

  __device__ __forceinline__ void begin(const Program& program, const lane_run& run) {
    task_ = run.first;
    stride_ = static_cast<unsigned>(run.stride);
    left_ = static_cast<unsigned>(run.count);
    context_ = program.begin(task_);
  }

  //! Warp-collective, after a refill: no lane holds a task, so the warp's work is done.
  [[nodiscard]] __device__ __forceinline__ bool done(bool /*source_exhausted*/) const {
    return !__any_sync(full_mask, left_ != 0);
  }

  //! Runs up to `steps` steps across the tasks of the run; true when the run is done. One loop,
  //! no inner one: the lanes whose task ended run end() and begin() while the others wait at
  //! the end of that iteration's branch, then all step on together. (A nested loop per task
  //! would make a finished lane wait at the inner loop's exit for every lane of the warp.)
  //! Always step(): advance() does not say how many steps it ran.
  __device__ __forceinline__ bool compute(const Program& program, int steps) {
    if (left_ == 0) return true;
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
      if (program.step(context_)) {
        program.end(task_, context_);
        if (--left_ == 0) return true;
        task_ += stride_;
        context_ = program.begin(task_);
      }
    }
    return false;
  }

  //! Tasks end inside compute(): nothing is left to end here.
  __device__ __forceinline__ void end_finished(const Program&) {}

 private:
  context context_{};
  task_id task_ = 0;
  unsigned stride_ = 1;
  unsigned left_ = 0;  // tasks of the run not yet ended, the running one included
};

}  // namespace microsched::detail
