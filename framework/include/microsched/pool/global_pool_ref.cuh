// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file global_pool_ref.cuh
//! Device view of the global task pool (frey2012 §4.1): one 64-bit counter in device memory that
//! hands out tasks [0, total) in order. Trivially copyable; kernels receive it by value.

#include "microsched/config.hpp"
#include "microsched/lane/lane_mask.hpp"

namespace microsched {

//! Device view of the global pool: tasks [0, total) handed out in order by an atomic counter.
struct global_pool_ref {
  unsigned long long* counter = nullptr;
  task_id total = 0;

#if defined(__CUDACC__)
  //! Warp-collective (every lane of `mask` calls it with the same `count`): one atomic for the
  //! whole warp, the base broadcast to all. The grab may run past `total`; clamp_grab() trims it.
  [[nodiscard]] __device__ __forceinline__ task_id grab(unsigned mask, task_id count,
                                                        unsigned lane) const {
    const int leader = leader_of(mask);
    unsigned long long base = 0;
    if (static_cast<int>(lane) == leader) {
      base = atomicAdd(counter, static_cast<unsigned long long>(count));
    }
    return __shfl_sync(mask, base, leader);
  }
#endif
};

}  // namespace microsched
