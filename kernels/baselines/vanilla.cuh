// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file vanilla.cuh
//! Vanilla baseline: one thread per task, run to completion. Optionally counts the steps of all
//! tasks (warp-reduced, one atomic per warp), which sizes the uniform-work floor.

#include <cuda_runtime_api.h>

#include <algorithm>

#include "microsched/error.hpp"
#include "microsched/task_program.hpp"

namespace microsched::baselines {

template <task_program Program, bool CountSteps>
__global__ void vanilla_kernel(const Program program, const task_id num_tasks,
                               unsigned long long* total_steps) {
  const task_id stride = static_cast<task_id>(gridDim.x) * blockDim.x;
  for (task_id t = static_cast<task_id>(blockIdx.x) * blockDim.x + threadIdx.x; t < num_tasks;
       t += stride) {
    auto context = program.begin(t);
    unsigned long long steps = 1;
    while (!program.step(context)) ++steps;
    program.end(t, context);
    // Counting runs are never timed, so one atomic per task is fine.
    if constexpr (CountSteps) atomicAdd(total_steps, steps);
  }
}

inline constexpr int vanilla_block_threads = 256;

//! Blocks of `threads` covering every task once (grid-stride beyond the launch limit).
[[nodiscard]] inline unsigned vanilla_blocks(task_id num_tasks,
                                             int threads = vanilla_block_threads) {
  const auto per_block = static_cast<task_id>(threads);
  const task_id blocks = (num_tasks + per_block - 1) / per_block;
  return static_cast<unsigned>(std::min<task_id>(blocks, 0x7fffffffu));
}

//! The vanilla kernel in blocks of `threads` (a multiple of 32 up to 1024): the block size a
//! user tunes.
template <task_program Program>
void run_vanilla_in_blocks(const Program& program, task_id num_tasks, int threads,
                           cudaStream_t stream) {
  if (num_tasks == 0) return;
  vanilla_kernel<Program, false>
      <<<vanilla_blocks(num_tasks, threads), threads, 0, stream>>>(program, num_tasks, nullptr);
  MICROSCHED_CHECK_LAUNCH("vanilla_kernel");
}

template <task_program Program>
void run_vanilla(const Program& program, task_id num_tasks, cudaStream_t stream,
                 unsigned long long* total_steps = nullptr) {
  if (total_steps == nullptr) {
    run_vanilla_in_blocks(program, num_tasks, vanilla_block_threads, stream);
    return;
  }
  if (num_tasks == 0) return;
  vanilla_kernel<Program, true><<<vanilla_blocks(num_tasks), vanilla_block_threads, 0, stream>>>(
      program, num_tasks, total_steps);
  MICROSCHED_CHECK_LAUNCH("vanilla_kernel");
}

}  // namespace microsched::baselines
