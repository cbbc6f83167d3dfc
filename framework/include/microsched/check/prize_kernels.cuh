// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file prize_kernels.cuh
//! The kernels measure_prize() needs besides the scheduler: one that counts each task's steps
//! (the direct mapping, recording how many steps every task took), the longest task alone, and
//! the uniform-work floor (every task runs the mean number of steps of the same step code, no
//! divergence).

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "microsched/config.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/driver/direct_kernel.cuh"
#include "microsched/error.hpp"
#include "microsched/measure/event_timer.hpp"
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

//! One step of the floor, its result kept in `finished` by a sum or an or.
template <bool Sum, class Program>
__device__ __forceinline__ void floor_step(const Program& program,
                                           typename Program::context& context, unsigned& finished) {
  if constexpr (Sum) {
    finished += step_divergent(program, context);
  } else {
    finished |= step_divergent(program, context) ? 1u : 0u;
  }
}

//! Every thread runs exactly `steps_per_task` steps, whether its task finished or not. end() may
//! read only part of the context and the step's result is otherwise unused: the stores to the
//! sinks (null, so they never run, but the compiler cannot prove it) keep the arithmetic and the
//! termination test alive, or the floor would time less work than the kernels it bounds.
//! Index and Count are 32-bit or 64-bit, the loop rolled or unrolled, the results kept by a sum
//! or an or: time_uniform_floor keeps the fastest form, so that the floor times the steps, not
//! its own bookkeeping.
template <class Program, class Index, class Count, bool Unrolled, bool Sum>
__global__ void uniform_floor_kernel(const Program program, const task_id num_tasks,
                                     const Count steps_per_task, typename Program::context* sink,
                                     unsigned* finished_sink) {
  const auto count = static_cast<Index>(num_tasks);
  const auto stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index t = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; t < count;
       t += stride) {
    auto context = program.begin(t);
    unsigned finished = 0;
    if constexpr (Unrolled) {
#pragma unroll 4
      for (Count s = 0; s < steps_per_task; ++s) floor_step<Sum>(program, context, finished);
    } else {
#pragma unroll 1
      for (Count s = 0; s < steps_per_task; ++s) floor_step<Sum>(program, context, finished);
    }
    program.end(t, context);
    if (sink != nullptr) *sink = context;
    if (finished_sink != nullptr) *finished_sink = finished;
  }
}

//! The floor's four loops (rolled or unrolled, sum or or) with ids and step count of type Index
//! and Count, each timed; the fastest so far stays in `best`.
template <class Program, class Index, class Count>
void time_floor_loops(event_timer& timer, const Program& program, task_id num_tasks, Count steps,
                      const timing_options& options, cudaStream_t stream, timing_stats& best,
                      bool& first) {
  const auto blocks = static_cast<unsigned>(direct_blocks(num_tasks, 256));
  typename Program::context* const no_context = nullptr;
  const auto keep = [&](auto kernel) {
    const timing_stats t = timer.time(
        [&](cudaStream_t s) {
          kernel<<<blocks, 256, 0, s>>>(program, num_tasks, steps, no_context, nullptr);
          MICROSCHED_CHECK_LAUNCH("microsched::uniform_floor_kernel");
        },
        options, stream);
    if (first || t.median_ms < best.median_ms) best = t;
    first = false;
  };
  keep(uniform_floor_kernel<Program, Index, Count, false, true>);
  keep(uniform_floor_kernel<Program, Index, Count, false, false>);
  keep(uniform_floor_kernel<Program, Index, Count, true, true>);
  keep(uniform_floor_kernel<Program, Index, Count, true, false>);
}

//! The floor's time: the fastest of its loop forms, 32-bit ids and step count where they fit and
//! 64-bit, each rolled or unrolled, with the results kept by a sum or an or. The code generator
//! serves none of them best everywhere (docs/decisions.md, "The floor's loop forms"). A floor
//! slower than it need be would flatter the scheduler.
template <class Program>
timing_stats time_uniform_floor(event_timer& timer, const Program& program, task_id num_tasks,
                                std::uint64_t steps_per_task, const timing_options& options,
                                cudaStream_t stream) {
  timing_stats best{};
  if (num_tasks == 0) return best;
  bool first = true;
  if (narrow_ids(num_tasks) && steps_per_task <= 0xffffffffu) {
    time_floor_loops<Program, std::uint32_t>(timer, program, num_tasks,
                                             static_cast<std::uint32_t>(steps_per_task), options,
                                             stream, best, first);
  }
  time_floor_loops<Program, task_id>(timer, program, num_tasks, steps_per_task, options, stream,
                                     best, first);
  return best;
}

//! The floor at the exact mean step count `mean`: the two neighbouring whole counts timed and
//! weighted (a rounded mean moves the floor by up to half a step a task, a large share of short
//! tasks).
template <class Program>
timing_stats time_floor_at_mean(event_timer& timer, const Program& program, task_id num_tasks,
                                double mean, const timing_options& options, cudaStream_t stream) {
  const auto below = static_cast<std::uint64_t>(std::floor(mean));
  const double weight = mean - static_cast<double>(below);
  const timing_stats low = time_uniform_floor(timer, program, num_tasks, below, options, stream);
  if (weight < 1e-3) return low;
  const timing_stats high =
      time_uniform_floor(timer, program, num_tasks, below + 1, options, stream);
  const auto mix = [&](double a, double b) { return (1 - weight) * a + weight * b; };
  return {mix(low.median_ms, high.median_ms), mix(low.min_ms, high.min_ms),
          mix(low.max_ms, high.max_ms), low.repetitions};
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
