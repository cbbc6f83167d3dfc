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

//! Every thread runs exactly `steps_per_task` steps, whether its task finished or not. end() may
//! read only part of the context and the step's result is otherwise unused: the stores to the
//! sinks (null, so they never run, but the compiler cannot prove it) keep the arithmetic and the
//! termination test alive, or the floor would time less work than the kernels it bounds.
//! Index and Count are 32-bit or 64-bit, the loop rolled or unrolled, the results kept by a sum
//! or an or (floor_form): time_uniform_floor keeps the fastest form, so that the floor times the
//! steps, not its own bookkeeping.
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
      for (Count s = 0; s < steps_per_task; ++s) {
        if constexpr (Sum) {
          finished += step_divergent(program, context);
        } else {
          finished |= step_divergent(program, context) ? 1u : 0u;
        }
      }
    } else {
#pragma unroll 1
      for (Count s = 0; s < steps_per_task; ++s) {
        if constexpr (Sum) {
          finished += step_divergent(program, context);
        } else {
          finished |= step_divergent(program, context) ? 1u : 0u;
        }
      }
    }
    program.end(t, context);
    if (sink != nullptr) *sink = context;
    if (finished_sink != nullptr) *finished_sink = finished;
  }
}

//! The floor's loop: task ids and the step count 32-bit or 64-bit, the step loop rolled or
//! unrolled by 4.
struct floor_form {
  bool narrow = true;  //!< 32-bit ids and step count (up to 2^31 tasks and 2^32 steps)
  bool unrolled = false;
  bool sum = true;  //!< the steps' results kept by a sum (else by an or)
};

//! Enqueues the uniform-work floor on `stream`: every task runs `steps_per_task` steps.
template <class Program, class Index, class Count, bool Unrolled>
void launch_uniform_floor(const Program& program, task_id num_tasks, Count steps, bool sum,
                          cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>(direct_blocks(num_tasks, 256));
  typename Program::context* const no_context = nullptr;
  if (sum) {
    uniform_floor_kernel<Program, Index, Count, Unrolled, true>
        <<<blocks, 256, 0, stream>>>(program, num_tasks, steps, no_context, nullptr);
  } else {
    uniform_floor_kernel<Program, Index, Count, Unrolled, false>
        <<<blocks, 256, 0, stream>>>(program, num_tasks, steps, no_context, nullptr);
  }
}

//! Enqueues the uniform-work floor on `stream`: every task runs `steps_per_task` steps.
template <class Program>
void run_uniform_floor(const Program& program, task_id num_tasks, std::uint64_t steps_per_task,
                       floor_form form, cudaStream_t stream) {
  if (num_tasks == 0) return;
  if (form.narrow) {
    const auto steps = static_cast<std::uint32_t>(steps_per_task);
    if (form.unrolled) {
      launch_uniform_floor<Program, std::uint32_t, std::uint32_t, true>(program, num_tasks, steps,
                                                                        form.sum, stream);
    } else {
      launch_uniform_floor<Program, std::uint32_t, std::uint32_t, false>(program, num_tasks, steps,
                                                                         form.sum, stream);
    }
  } else if (form.unrolled) {
    launch_uniform_floor<Program, task_id, std::uint64_t, true>(program, num_tasks, steps_per_task,
                                                                form.sum, stream);
  } else {
    launch_uniform_floor<Program, task_id, std::uint64_t, false>(program, num_tasks, steps_per_task,
                                                                 form.sum, stream);
  }
  MICROSCHED_CHECK_LAUNCH("microsched::uniform_floor_kernel");
}

//! The floor's time: the fastest of its eight loop forms (floor_form; the 32-bit ones where ids
//! and count fit). The code generator serves none of them best everywhere. On an H100: Julia's
//! dust view (2048², double) 0.066 ms 32-bit, unrolled, or against 0.075 ms 64-bit, rolled, sum;
//! the islands view (float) 0.236 ms with a sum against 0.248 ms with an or; random walks of 16
//! steps 0.180 ms against 0.199 ms. A floor slower than it need be would flatter the scheduler.
template <class Program>
timing_stats time_uniform_floor(event_timer& timer, const Program& program, task_id num_tasks,
                                std::uint64_t steps_per_task, const timing_options& options,
                                cudaStream_t stream) {
  const bool fits = num_tasks <= task_id{1} << 31 && steps_per_task <= 0xffffffffu;
  timing_stats best{};
  bool first = true;
  for (const bool narrow : {true, false}) {
    if (narrow && !fits) continue;
    for (const bool unrolled : {false, true}) {
      for (const bool sum : {true, false}) {
        const floor_form form{narrow, unrolled, sum};
        const timing_stats t = timer.time(
            [&](cudaStream_t s) { run_uniform_floor(program, num_tasks, steps_per_task, form, s); },
            options, stream);
        if (first || t.median_ms < best.median_ms) best = t;
        first = false;
      }
    }
  }
  return best;
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
