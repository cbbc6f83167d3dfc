#pragma once
//! @file uniform_floor.cuh
//! The uniform-work floor: every thread runs exactly `steps_per_task` steps of the same step code
//! (the mean over all tasks), ignoring whether its task finished, so no warp ever diverges. Its
//! time is what the same total work costs without divergence: the limit a scheduler approaches.
//! Its outputs are meaningless; point the program at scratch buffers.

#include <cuda_runtime_api.h>

#include "microsched/error.hpp"
#include "microsched/task_program.hpp"
#include "vanilla.cuh"

namespace microsched::baselines {

template <task_program Program>
__global__ void uniform_floor_kernel(const Program program, const task_id num_tasks,
                                     const unsigned long long steps_per_task,
                                     typename Program::context* sink, unsigned* finished_sink) {
  const task_id stride = static_cast<task_id>(gridDim.x) * blockDim.x;
  for (task_id t = static_cast<task_id>(blockIdx.x) * blockDim.x + threadIdx.x; t < num_tasks;
       t += stride) {
    auto context = program.begin(t);
    unsigned finished = 0;
    for (unsigned long long s = 0; s < steps_per_task; ++s) finished += program.step(context);
    program.end(t, context);
    // end() may read only part of the context (Julia writes just the count), and the step's
    // result is otherwise unused: without these stores, which never run (the sinks are null)
    // but cannot be proven dead, the compiler would drop the termination test and the rest of
    // the arithmetic, and the floor would time less work than the kernels it bounds.
    if (sink != nullptr) *sink = context;
    if (finished_sink != nullptr) *finished_sink = finished;
  }
}

template <task_program Program>
void run_uniform_floor(const Program& program, task_id num_tasks, unsigned long long steps_per_task,
                       cudaStream_t stream) {
  if (num_tasks == 0) return;
  uniform_floor_kernel<Program><<<vanilla_blocks(num_tasks), vanilla_block_threads, 0, stream>>>(
      program, num_tasks, steps_per_task, nullptr, nullptr);
  MICROSCHED_CHECK_LAUNCH("uniform_floor_kernel");
}

}  // namespace microsched::baselines
