// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file direct_kernel.cuh
//! The direct mapping (pool_strategy::direct and strided): one thread per task, run to
//! completion, as a vanilla kernel does, in the two forms vanilla kernels take. Both are
//! automatic candidates and the faster needs no margin, so the scheduler's choice is never
//! slower than the user's own kernel beyond noise. A managed-branch program runs its branches
//! divergently (switching::divergent_gate).

#include <cstdint>

#include "microsched/config.hpp"
#include "microsched/switching/managed_program.hpp"

namespace microsched {

namespace detail {
template <class Program>
__device__ __forceinline__ bool step_divergent(const Program& program,
                                               typename Program::context& context) {
  if constexpr (switching::managed_task_program<Program>) {
    switching::divergent_gate gate;
    return program.step(context, gate);
  } else {
    return program.step(context);
  }
}
}  // namespace detail

//! Threads per block of the direct mapping, whatever the policy's: what vanilla kernels commonly
//! use, and faster than the policy's 128 on short runs (docs/decisions.md, "The direct
//! mapping's two forms").
inline constexpr int direct_block_threads = 256;

//! The textbook kernel's smaller block, for kernels whose registers leave part of an SM unused
//! in blocks of 256 (docs/decisions.md, "The direct mapping's block size").
inline constexpr int direct_small_block_threads = 128;

//! Threads per block of the textbook direct kernel, from how many blocks of each size fit one
//! SM: the smaller block where it keeps more threads resident, else direct_block_threads.
[[nodiscard]] constexpr int direct_threads_for(int blocks_of_256, int blocks_of_128) {
  return blocks_of_128 * direct_small_block_threads > blocks_of_256 * direct_block_threads
             ? direct_small_block_threads
             : direct_block_threads;
}

//! One thread per task, the textbook vanilla kernel: `t = blockIdx.x * blockDim.x +
//! threadIdx.x`, return past the end, no loop around the task and no launch bounds. Up to 2^31
//! tasks, with 32-bit ids. The direct candidate must cost what the user's own kernel costs, and
//! the code generator treats the two forms differently.
template <class Program, int BlockThreads>
__global__ void direct_kernel_one_per_thread(const Program program, const task_id num_tasks) {
  const std::uint32_t t = blockIdx.x * BlockThreads + threadIdx.x;
  if (t >= static_cast<std::uint32_t>(num_tasks)) return;
  auto context = program.begin(t);
  while (!detail::step_divergent(program, context)) {
  }
  program.end(t, context);
}

//! The other form a vanilla kernel takes: a grid-stride loop over 64-bit ids with the block size
//! read at run time (`blockDim.x`), as users write it, and no launch bounds
//! (pool_strategy::strided, and direct past 2^31 tasks). Neither form wins everywhere, and
//! whether the block size is a constant is enough to move the code generator.
template <class Program>
__global__ void direct_kernel_strided(const Program program, const task_id num_tasks) {
  const task_id stride = static_cast<task_id>(gridDim.x) * blockDim.x;
  for (task_id t = static_cast<task_id>(blockIdx.x) * blockDim.x + threadIdx.x; t < num_tasks;
       t += stride) {
    auto context = program.begin(t);
    while (!detail::step_divergent(program, context)) {
    }
    program.end(t, context);
  }
}

}  // namespace microsched
