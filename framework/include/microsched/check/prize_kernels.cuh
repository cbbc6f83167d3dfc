#pragma once
//! @file prize_kernels.cuh
//! The kernels measure_prize() needs besides the scheduler: one that counts each task's steps
//! (the direct mapping, recording how many steps every task took), the longest task alone, and
//! the uniform-work floor (every task runs the mean number of steps of the same step code, no
//! divergence).

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "microsched/config.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/driver/direct_kernel.cuh"
#include "microsched/error.hpp"
#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched::detail {

template <class Program>
__global__ void count_steps_kernel(const Program program, const task_id num_tasks,
                                   std::uint32_t* steps) {
  const task_id stride = static_cast<task_id>(gridDim.x) * blockDim.x;
  for (task_id t = static_cast<task_id>(blockIdx.x) * blockDim.x + threadIdx.x; t < num_tasks;
       t += stride) {
    auto context = program.begin(t);
    std::uint32_t n = 1;
    while (!step_divergent(program, context)) ++n;
    program.end(t, context);
    steps[t] = n;
  }
}

//! One task, alone in one thread: the latency of its chain of steps, with nothing to share the
//! GPU with.
template <class Program>
__global__ void single_task_kernel(const Program program, const task_id task) {
  auto context = program.begin(task);
  while (!step_divergent(program, context)) {
  }
  program.end(task, context);
}

//! Every thread runs exactly `steps_per_task` steps, whether its task finished or not. end() may
//! read only part of the context and the step's result is otherwise unused: the stores to the
//! sinks (null, so they never run, but the compiler cannot prove it) keep the arithmetic and the
//! termination test alive, or the floor would time less work than the kernels it bounds.
template <class Program>
__global__ void uniform_floor_kernel(const Program program, const task_id num_tasks,
                                     const std::uint64_t steps_per_task,
                                     typename Program::context* sink, unsigned* finished_sink) {
  const task_id stride = static_cast<task_id>(gridDim.x) * blockDim.x;
  for (task_id t = static_cast<task_id>(blockIdx.x) * blockDim.x + threadIdx.x; t < num_tasks;
       t += stride) {
    auto context = program.begin(t);
    unsigned finished = 0;
    for (std::uint64_t s = 0; s < steps_per_task; ++s) finished += step_divergent(program, context);
    program.end(t, context);
    if (sink != nullptr) *sink = context;
    if (finished_sink != nullptr) *finished_sink = finished;
  }
}

//! Every task's steps, from a direct run that records them (the outputs hold that run's results).
template <class Program>
std::vector<std::uint32_t> steps_per_task(const Program& program, task_id num_tasks,
                                          cudaStream_t stream) {
  device_buffer<std::uint32_t> steps(num_tasks);
  const auto blocks = static_cast<unsigned>(direct_blocks(num_tasks, 256));
  count_steps_kernel<<<blocks, 256, 0, stream>>>(program, num_tasks, steps.data());
  MICROSCHED_CHECK_LAUNCH("microsched::count_steps_kernel");
  return steps.to_host(stream);
}

//! Enqueues `task` alone in one thread on `stream`.
template <class Program>
void run_single_task(const Program& program, task_id task, cudaStream_t stream) {
  single_task_kernel<<<1, 1, 0, stream>>>(program, task);
  MICROSCHED_CHECK_LAUNCH("microsched::single_task_kernel");
}

}  // namespace microsched::detail
