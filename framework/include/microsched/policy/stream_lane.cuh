#pragma once
//! @file stream_lane.cuh
//! One lane's state under the stream strategy (driver/stream_task_source.cuh). The warp holds a
//! range of tasks; a lane whose task ends inside a window ends it, and the lanes whose tasks
//! ended take the next tasks of the range together, in lane order by a ballot. A lane idles
//! only once the range is spent, and a refill then gives the warp a new range. Short tasks cost
//! a begin and an end each, with no atomic or wait for the warp's next check between them.
//! How often the lanes take (every step for tasks of a few steps, up to every 16 for longer
//! ones) follows the task lengths the warp sees: stream_take_interval() in pool/lane_run.hpp.

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

  //! Warp-collective: `steps` steps. Lanes whose task ended take the next tasks of the range
  //! together, every `every_` steps and at the end of the window (so that no ended lane is left
  //! with tasks still in the range when the driver refills). True when this lane holds no task
  //! (the range is spent). Always step(): advance() does not say how many steps it ran.
  __device__ __forceinline__ bool compute(const Program& program, int steps) {
    unsigned ended_tasks = 0;
    int since = 0;
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
      if (running_ && !ended_) {
        ended_ = program.step(context_);
        if (ended_) program.end(task_, context_);
      }
      if (++since < every_ && s + 1 < steps) continue;  // warp-uniform
      since = 0;
      const unsigned takers = __ballot_sync(full_mask, ended_);
      if (takers == 0) continue;
      ended_tasks += static_cast<unsigned>(popcount(takers));
      const task_id t = take_in_order(next_, end_, takers, lane_);
      if (ended_) {
        ended_ = false;
        running_ = t < end_;
        if (running_) {
          task_ = t;
          context_ = program.begin(t);
        }
      }
    }
    every_ = stream_take_interval(every_, steps, ended_tasks);
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
  int every_ = 1;         // steps between takes, the same in every lane
  bool running_ = false;  // holds a task
  bool ended_ = false;    // its task ended since the last take
};

}  // namespace microsched::detail
