#pragma once
//! @file stream_task_source.cuh
//! Stream strategy: idle lanes take interleaved runs of tasks (pool/lane_run.hpp) from the global
//! pool with one atomic per refill, and the lane begins the next task of its run inside the
//! compute window (policy/stream_lane.cuh). A refill hands out runs, not single tasks.

#include "microsched/config.hpp"
#include "microsched/driver/driver_params.hpp"
#include "microsched/lane/lane_mask.hpp"
#include "microsched/pool/global_pool_ref.cuh"
#include "microsched/pool/lane_run.hpp"
#include "microsched/pool/task_range.hpp"

namespace microsched {

class stream_task_source {
 public:
  struct temp_storage {};
  //! What a refill hands an idle lane: a run of tasks.
  using grant = lane_run;

  __device__ __forceinline__ stream_task_source(temp_storage&, const driver_params& params)
      : pool_(params.pool),
        longest_(params.chunk),
        resident_(static_cast<task_id>(gridDim.x) * blockDim.x) {}

  //! Warp-collective. Hands each lane of `idle` a run of tasks; false for lanes left without.
  [[nodiscard]] __device__ __forceinline__ bool acquire(unsigned idle, unsigned lane,
                                                        lane_run& out) {
    if (drained_) return false;
    const auto lanes = static_cast<unsigned>(popcount(idle));
    const task_id per_lane = stream_run_length(pool_.total, seen_, resident_, longest_);
    const task_id want = per_lane * lanes;
    const task_id base = pool_.grab(full_mask, want, lane);
    const task_range got = clamp_grab(base, want, pool_.total);
    seen_ = base + want;
    drained_ = got.size() < want;
    if (((idle >> lane) & 1u) == 0) return false;
    out = stream_run_of(got, static_cast<unsigned>(rank_in_mask(idle, lane)), lanes, per_lane);
    return out.count > 0;
  }

  //! Warp-uniform: no task will ever come from this source again.
  [[nodiscard]] __device__ __forceinline__ bool exhausted() const { return drained_; }

 private:
  global_pool_ref pool_;
  task_id longest_;
  task_id resident_;
  task_id seen_ = 0;  // the pool counter after this warp's last grab
  bool drained_ = false;
};

}  // namespace microsched
