// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file persistent_kernel.cuh
//! The persistent driver, one kernel for every policy: persistent warps refill their idle lanes
//! from the task source of the pool strategy, run `deferral` steps (or step visits) at a time
//! with no ballot in between, and leave the compute loop only when the fetch control says so.
//! The policy's lane type says what a lane holds and how it runs them (termination_policy.cuh,
//! switching_policy.cuh); the source, the fetch decision and the loop are shared.

#include <concepts>

#include "microsched/config.hpp"
#include "microsched/driver/dependent_launch.cuh"
#include "microsched/driver/driver_params.hpp"
#include "microsched/driver/remapped_loop.cuh"
#include "microsched/driver/task_source.cuh"
#include "microsched/fetch/idle_count.cuh"
#include "microsched/fetch/should_leave.hpp"
#include "microsched/schedule/pool_strategy.hpp"

namespace microsched {

//! What a launch compiles in besides the program and the policy: the pool strategy, how idle
//! lanes are counted and, for policies with parked contexts, their ring
//! order, and for the warp_range strategy the steps between a lane's refills. Each is a template
//! parameter so that no run-time branch sits in the compute loop.
template <pool_strategy Strategy, bool Fifo, int Period = default_warp_range_period>
struct kernel_variant {
  static constexpr pool_strategy strategy = Strategy;
  static constexpr bool fifo = Fifo;
  static constexpr int period = Period;
};

namespace detail {
//! A program whose task count is known only on the device (resumed_program) names it here.
template <class Program>
concept counts_tasks_on_device = requires(const Program& p, task_id bound) {
  { p.tasks_on_device(bound) } -> std::same_as<task_id>;
};

//! The launch's parameters with the task count the program reads on the device.
template <class Program>
__device__ __forceinline__ driver_params with_device_total(const Program& program,
                                                           const driver_params& params) {
  driver_params p = params;
  p.pool.total = program.tasks_on_device(p.pool.total);
  return p;
}

//! Zeroes the pool counter of the next launch, so that no memset runs between launches.
__device__ __forceinline__ void zero_next_counter(const driver_params& params) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *params.next_counter = 0;
}

template <class Variant, int BlockThreads>
struct driver_storage {
  typename task_source_t<Variant::strategy>::temp_storage source;
  typename idle_count<BlockThreads / warp_size>::temp_storage idle;
};

//! The driver loop, shared by both kernel entry points below.
template <class Program, class Policy, class Variant>
__device__ __forceinline__ void persistent_loop(const Program& program, const driver_params& params,
                                                const typename Policy::params& policy_params) {
  using lane_type = typename Policy::template lane<Program, Variant>;
  using source_type = task_source_t<Variant::strategy>;
  __shared__ detail::driver_storage<Variant, Policy::block_threads> storage;
  __shared__ typename lane_type::temp_storage lane_storage;
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  const unsigned lane = threadIdx.x % warp_size;
  const unsigned warp = threadIdx.x / warp_size;

  auto source = detail::make_source<Variant::strategy>(storage.source, params);
  detail::idle_count<Policy::block_threads / warp_size> idle(storage.idle, warp, lane);
  lane_type mine(lane_storage, policy_params, dynamic_shared, warp, lane);
  for (;;) {
    // Refill: every idle lane at once, one collective call.
    const unsigned empty = __ballot_sync(full_mask, mine.empty());
    if (empty != 0 && !source.exhausted()) {
      typename source_type::grant fresh{};
      if (source.acquire(empty, lane, fresh)) mine.begin(program, fresh);
    }
    if (mine.done(source.exhausted())) break;
    const bool drained = source.exhausted();  // then refills cannot help: wait for all lanes

    // Compute: `deferral` steps at a time; a finished lane idles until the warp leaves.
    for (;;) {
      const bool idle_now = mine.compute(program, params.deferral);
      if (should_leave(idle.count(idle_now), params.idle_threshold, drained)) break;
    }
    idle.reset();
    mine.end_finished(program);
  }
}
}  // namespace detail

//! Launch with Policy::block_threads threads per block and
//! Policy::dynamic_shared_bytes<Program> bytes of dynamic shared memory. The launch bounds name
//! no minimum of blocks per SM, as a vanilla kernel's would: a minimum (`.minnctapersm`) changes
//! ptxas's register and scheduling choices.
template <class Program, class Policy, class Variant>
__global__ void __launch_bounds__(Policy::block_threads)
    persistent_kernel(const Program program, const driver_params params,
                      const typename Policy::params policy_params) {
  detail::zero_next_counter(params);
  if constexpr (Variant::strategy == pool_strategy::remapped) {
    detail::remapped_loop<Program, Policy::block_threads>(program, params);
  } else if constexpr (detail::counts_tasks_on_device<Program>) {
    detail::wait_for_prerequisite_grid();  // the count and the tasks come from the launch before
    const driver_params counted = detail::with_device_total(program, params);
    // None: every warp would still take its first grant from the pool's one counter.
    if (counted.pool.total == 0) return;
    detail::persistent_loop<Program, Policy, Variant>(program, counted, policy_params);
  } else {
    detail::persistent_loop<Program, Policy, Variant>(program, params, policy_params);
  }
}

//! The same with a register cap: Policy::min_blocks_per_sm blocks must fit an SM's registers.
template <class Program, class Policy, class Variant>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks_per_sm)
    persistent_kernel_capped(const Program program, const driver_params params,
                             const typename Policy::params policy_params) {
  detail::zero_next_counter(params);
  detail::persistent_loop<Program, Policy, Variant>(program, params, policy_params);
}

}  // namespace microsched
