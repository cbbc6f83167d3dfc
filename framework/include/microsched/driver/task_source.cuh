// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file task_source.cuh
//! The task source of each pool strategy (frey2012 §4.2, Table 1), chosen at compile time, and
//! how the driver constructs it. Every source offers the same warp-collective interface:
//! `acquire(idle_mask, lane, out)` hands each idle lane its `grant` (its next task; a run of tasks
//! for the warp_range strategy), `exhausted()` says no task will ever come again.

#include <type_traits>

#include "microsched/driver/driver_params.hpp"
#include "microsched/driver/hybrid_task_source.cuh"
#include "microsched/driver/local_task_source.cuh"
#include "microsched/driver/private_pools_source.cuh"
#include "microsched/driver/warp_range_source.cuh"
#include "microsched/schedule/pool_strategy.hpp"

namespace microsched::detail {

template <pool_strategy Strategy>
using task_source_t = std::conditional_t<
    Strategy == pool_strategy::local, local_task_source,
    std::conditional_t<Strategy == pool_strategy::private_pools, private_pools_source,
                       std::conditional_t<Strategy == pool_strategy::warp_range, warp_range_source,
                                          hybrid_task_source>>>;

//! Block-collective for Local (its constructor synchronises the block), per warp otherwise.
template <pool_strategy Strategy>
__device__ __forceinline__ task_source_t<Strategy> make_source(
    typename task_source_t<Strategy>::temp_storage& storage, const driver_params& params) {
  if constexpr (Strategy == pool_strategy::local) {
    return {storage, params, static_cast<task_id>(blockIdx.x), threadIdx.x == 0};
  } else {
    return {storage, params};
  }
}

}  // namespace microsched::detail
