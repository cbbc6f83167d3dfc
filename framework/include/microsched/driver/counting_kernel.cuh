// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file counting_kernel.cuh
//! The direct mapping that also counts: one thread per task, as direct_kernel_one_per_thread,
//! and per warp the sum and the slowest lane's steps, and the tasks past a step budget, added
//! once per warp to step_counts (nothing where `counts` is null: the one kernel serves both). The
//! automatic schedule runs the first slice of a first call this way and predicts from the counts
//! (schedule/step_counts.hpp) what runs the rest.

#include <cstdint>

#include "microsched/config.hpp"
#include "microsched/schedule/step_counts.hpp"

namespace microsched {

namespace detail {
//! Runs task `t` to its end and returns its steps; 0 for a thread past the last task.
template <class Count, class Program>
__device__ __forceinline__ Count run_counted(const Program& program, std::uint32_t t,
                                             task_id num_tasks) {
  Count steps = 0;
  if (t < static_cast<std::uint32_t>(num_tasks)) {
    auto context = program.begin(t);
    do {
      ++steps;
    } while (!program.step(context));
    program.end(t, context);
  }
  return steps;
}
}  // namespace detail

template <class Program, int BlockThreads>
__global__ void direct_kernel_counting(const Program program, const task_id num_tasks,
                                       step_counts* counts) {
  const std::uint32_t t = blockIdx.x * BlockThreads + threadIdx.x;
  const auto steps = detail::run_counted<unsigned long long>(program, t, num_tasks);
  // A warp's sum, its slowest lane and its tasks past the budget; one atomic each per warp.
  unsigned long long sum = steps;
  unsigned long long slowest = steps;
  unsigned long long over = steps > step_counts::budget ? 1 : 0;
  for (int offset = warp_size / 2; offset > 0; offset /= 2) {
    sum += __shfl_down_sync(full_mask, sum, offset);
    over += __shfl_down_sync(full_mask, over, offset);
    const unsigned long long other = __shfl_down_sync(full_mask, slowest, offset);
    slowest = other > slowest ? other : slowest;
  }
  if (counts != nullptr && (threadIdx.x & (warp_size - 1)) == 0 && slowest > 0) {
    atomicAdd(&counts->steps, sum);
    atomicAdd(&counts->warp_slowest, slowest * warp_size);
    atomicAdd(&counts->over_budget, over);
  }
}

}  // namespace microsched
