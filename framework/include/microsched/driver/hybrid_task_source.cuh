// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file hybrid_task_source.cuh
//! Hybrid strategy: a per-warp local pool refilled from the global pool by one atomic per grab.
//! The warp acts in lockstep on it, so the pool is warp-uniform state held (replicated) in
//! registers: the same two counters the paper keeps in shared memory, without the bank traffic
//! or the barriers.

#include "microsched/driver/driver_params.hpp"
#include "microsched/lane/lane_mask.hpp"
#include "microsched/pool/task_range.hpp"

namespace microsched {

class hybrid_task_source {
 public:
  struct temp_storage {};
  using grant = task_id;  //!< a refill hands an idle lane one task

  __device__ __forceinline__ hybrid_task_source(temp_storage&, const driver_params& params)
      : pool_(params.pool), chunk_(params.chunk) {}

  //! Warp-collective. Hands each lane of `idle` the next task, grabbing shortfall + chunk from the
  //! global pool when the local pool runs short. Returns false for lanes left without a task.
  [[nodiscard]] __device__ __forceinline__ bool acquire(unsigned idle, unsigned lane,
                                                        task_id& out) {
    const int need = popcount(idle);
    task_range grabbed{};
    const task_id grab = drained_ ? 0 : hybrid_grab_size(local_, need, chunk_);
    if (grab != 0) {
      grabbed = clamp_grab(pool_.grab(full_mask, grab, lane), grab, pool_.total);
      drained_ = grabbed.size() < grab;
    }
    const bool got =
        ((idle >> lane) & 1u) && hybrid_pick(local_, grabbed, rank_in_mask(idle, lane), out);
    local_ = hybrid_after(local_, grabbed, need);
    return got;
  }

  //! Warp-uniform: no task will ever come from this source again.
  [[nodiscard]] __device__ __forceinline__ bool exhausted() const {
    return drained_ && local_.empty();
  }

 private:
  global_pool_ref pool_;
  task_id chunk_;
  task_range local_{};
  bool drained_ = false;
};

}  // namespace microsched
