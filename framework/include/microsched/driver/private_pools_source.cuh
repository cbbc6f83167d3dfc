// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file private_pools_source.cuh
//! The private_pools strategy: a private pool per lane (registers) refilled with `chunk` tasks
//! from the global pool. Lanes needing a refill at the same moment share one warp-aggregated
//! atomic.

#include "microsched/driver/driver_params.hpp"
#include "microsched/lane/lane_mask.hpp"
#include "microsched/pool/task_range.hpp"

namespace microsched {

class private_pools_source {
 public:
  struct temp_storage {};
  using grant = task_id;  //!< a refill hands an idle lane one task

  __device__ __forceinline__ private_pools_source(temp_storage&, const driver_params& params)
      : pool_(params.pool), chunk_(params.chunk) {}

  [[nodiscard]] __device__ __forceinline__ bool acquire(unsigned idle, unsigned lane,
                                                        task_id& out) {
    const bool is_idle = (idle >> lane) & 1u;
    const unsigned refill = __ballot_sync(full_mask, is_idle && mine_.empty());
    if (refill != 0 && !drained_) {
      const task_id base =
          pool_.grab(full_mask, static_cast<task_id>(popcount(refill)) * chunk_, lane);
      const bool refills = (refill >> lane) & 1u;
      if (refills) mine_ = private_chunk(base, rank_in_mask(refill, lane), chunk_, pool_.total);
      drained_ = __any_sync(full_mask, refills && mine_.size() < chunk_);
    }
    const bool got = is_idle && !mine_.empty();
    if (got) out = mine_.next++;
    exhausted_ = drained_ && !__any_sync(full_mask, !mine_.empty());
    return got;
  }

  [[nodiscard]] __device__ __forceinline__ bool exhausted() const { return exhausted_; }

 private:
  global_pool_ref pool_;
  task_id chunk_;
  task_range mine_{};
  bool drained_ = false;    // warp-uniform: the global pool is empty
  bool exhausted_ = false;  // warp-uniform: and so is every lane's private pool
};

}  // namespace microsched
