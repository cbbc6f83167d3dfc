// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file local_task_source.cuh
//! Local strategy: one pool per block in shared memory, statically holding the block's `chunk`
//! tasks (frey2012 §4.2); warps take from it with one shared-memory atomic per refill.

#include "microsched/driver/driver_params.hpp"
#include "microsched/lane/lane_mask.hpp"
#include "microsched/pool/task_range.hpp"

namespace microsched {

class local_task_source {
 public:
  struct temp_storage {
    unsigned long long next;
  };
  using grant = task_id;  //!< a refill hands an idle lane one task

  //! Block-collective constructor: every thread of the block must call it (it synchronises).
  __device__ __forceinline__ local_task_source(temp_storage& storage, const driver_params& params,
                                               task_id block, bool first_thread)
      : storage_(storage), range_(local_block_range(block, params.chunk, params.pool.total)) {
    if (first_thread) storage_.next = range_.next;
    __syncthreads();
  }

  [[nodiscard]] __device__ __forceinline__ bool acquire(unsigned idle, unsigned lane,
                                                        task_id& out) {
    const int need = popcount(idle);
    if (drained_) return false;
    const int leader = leader_of(idle);
    unsigned long long base = 0;
    if (static_cast<int>(lane) == leader)
      base = atomicAdd(&storage_.next, static_cast<unsigned long long>(need));
    base = __shfl_sync(full_mask, base, leader);
    const task_range got = clamp_grab(base, static_cast<task_id>(need), range_.end);
    drained_ = got.size() < static_cast<task_id>(need) || got.end == range_.end;
    const auto rank = static_cast<task_id>(rank_in_mask(idle, lane));
    const bool mine = ((idle >> lane) & 1u) && rank < got.size();
    if (mine) out = got.next + rank;
    return mine;
  }

  [[nodiscard]] __device__ __forceinline__ bool exhausted() const { return drained_; }

 private:
  temp_storage& storage_;
  task_range range_;
  bool drained_ = false;
};

}  // namespace microsched
