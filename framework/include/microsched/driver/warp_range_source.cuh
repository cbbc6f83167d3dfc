// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file warp_range_source.cuh
//! The warp_range strategy: a warp with idle lanes grabs a range of tasks for all its lanes with
//! one atomic; the lanes take their next tasks from it within the deferral
//! (policy/warp_range_lane.cuh). A refill hands out a range, not one task per idle lane.

#include "microsched/config.hpp"
#include "microsched/driver/driver_params.hpp"
#include "microsched/pool/global_pool_ref.cuh"
#include "microsched/pool/lane_run.hpp"
#include "microsched/pool/task_range.hpp"

namespace microsched {

class warp_range_source {
 public:
  struct temp_storage {};
  //! What a refill hands the warp: its new range and the lanes that were idle.
  using grant = warp_run;

  __device__ __forceinline__ warp_range_source(temp_storage&, const driver_params& params)
      : pool_(params.pool),
        longest_(params.chunk),
        resident_(static_cast<task_id>(gridDim.x) * blockDim.x) {}

  //! Warp-collective. Grabs up to `chunk` tasks per lane of the warp (fewer as the pool drains);
  //! true on every lane when the grab got any, so every lane sees the new range.
  [[nodiscard]] __device__ __forceinline__ bool acquire(unsigned idle, unsigned lane,
                                                        warp_run& out) {
    if (drained_) return false;
    const task_id want = stream_run_length(pool_.total, seen_, resident_, longest_) * warp_size;
    const task_id base = pool_.grab(full_mask, want, lane);
    out = {clamp_grab(base, want, pool_.total), idle};
    seen_ = base + want;
    drained_ = out.got.size() < want;
    return out.got.size() > 0;
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
