// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file warp_range_lane.cuh
//! One lane's state under the warp_range strategy (driver/warp_range_source.cuh). The warp holds a
//! range of tasks; when a lane's task ends within the deferral the lane ends it and, at the end of
//! a short period of steps, takes the next task of the range, in lane order by a ballot. A lane
//! idles longer only once the range is spent, and a refill then gives the warp a new range.
//! Short tasks cost a begin and an end each, with no atomic or wait for the warp between them.

#include "microsched/config.hpp"
#include "microsched/pool/lane_run.hpp"
#include "microsched/task_program.hpp"

namespace microsched::detail {

//! `Period` is the steps a lane runs between two refills. A refill is a ballot and a begin, so a
//! short period costs ballots and a long one costs the steps a finished lane idles until the
//! period ends; which costs more depends on the step: a few integer instructions want 8, a step
//! of Philox draws wants 4. The kernels are compiled for 4 and 8, and the automatic schedule
//! times both (docs/decisions.md, "The warp_range strategy's refill period").
template <class Program, int Period>
class warp_range_lane {
  static_assert(Period >= 1, "a warp_range lane runs at least one step between refills");
  using context = typename Program::context;

 public:
  struct temp_storage {};

  template <class PolicyParams>
  __device__ __forceinline__ warp_range_lane(temp_storage&, const PolicyParams&, unsigned char*,
                                             unsigned, unsigned lane)
      : lane_(lane) {}

  //! This lane holds no task: the driver may refill the warp.
  [[nodiscard]] __device__ __forceinline__ bool empty() const { return !running_; }

  //! Warp-collective (every lane, after a refill): the warp's new range; each idle lane begins
  //! its first task from it.
  __device__ __forceinline__ void begin(const Program& program, const warp_run& run) {
    next_ = run.got.next;
    end_ = run.got.end;
    const unsigned takers = run.idle;
    const task_id t = take_in_order(next_, end_, takers, lane_);
    if (((takers >> lane_) & 1u) != 0 && t < end_) {
      task_ = t;
      context_ = program.begin(t);
      running_ = true;
    }
  }

  //! Warp-collective, after a refill: no lane holds a task, so the warp's work is done.
  [[nodiscard]] __device__ __forceinline__ bool done(bool /*source_exhausted*/) const {
    return !__any_sync(full_mask, running_);
  }

  //! Warp-collective: `steps` steps, in periods of `Period` steps; a lane whose task ends
  //! idles to the end of its period, then takes the next task of the range. True when this lane
  //! holds no task (the range is spent). Always step(): advance() does not say how many steps
  //! it ran.
  __device__ __forceinline__ bool compute(const Program& program, int steps) {
    // A long step is not copied (unrolled_steps_of, task_program.hpp).
    constexpr int period_unroll = unrolled_steps_of<Program> == 1 ? 1 : Period;
#pragma unroll 1
    for (int s = 0; s < steps; s += Period) {
      bool ended = false;
      if (running_) {
#pragma unroll period_unroll
        for (int k = 0; k < Period && !ended; ++k) ended = program.step(context_);
        if (ended) program.end(task_, context_);
      }
      const unsigned takers = __ballot_sync(full_mask, ended);
      if (takers != 0) {
        const task_id t = take_in_order(next_, end_, takers, lane_);
        if (ended) {
          running_ = t < end_;
          if (running_) {
            task_ = t;
            context_ = program.begin(t);
          }
        }
      }
    }
    return !running_;
  }

  //! Tasks end inside compute(): nothing is left to end here.
  __device__ __forceinline__ void end_finished(const Program&) {}

 private:
  context context_{};
  task_id task_ = 0;
  task_id next_ = 0;  // the warp's range [next_, end_), the same in every lane
  task_id end_ = 0;
  unsigned lane_;
  bool running_ = false;
};

}  // namespace microsched::detail
