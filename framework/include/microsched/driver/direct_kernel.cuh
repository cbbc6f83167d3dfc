#pragma once
//! @file direct_kernel.cuh
//! The direct mapping (pool_strategy::direct): one thread per task, run to completion, as a
//! vanilla kernel does. It is the automatic schedule's first candidate, so the scheduler's
//! choice is never slower than the user's own kernel beyond noise. A managed-branch program runs
//! its branches divergently (switching::divergent_gate).

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
//! use. With the policy's 128, runs of 0.1-0.3 ms (Julia's escaping views on an H100) took 4-7%
//! longer than the same kernel in blocks of 256 (bench_termination julia-neck).
inline constexpr int direct_block_threads = 256;

//! One thread per task, the textbook vanilla kernel: `t = blockIdx.x * blockDim.x +
//! threadIdx.x`, return past the end, no loop around the task and no launch bounds. Up to 2^31
//! tasks, with 32-bit ids. The direct candidate must cost what the user's own kernel costs, and
//! the code generator treats the two forms differently: on an H100, a float Mandelbrot of 2^20
//! pixels took 0.105 ms in the grid-stride form against 0.094 ms in this one, which its vanilla
//! kernel also took.
template <class Program, int BlockThreads>
__global__ void direct_kernel_one_per_thread(const Program program, const task_id num_tasks) {
  const std::uint32_t t = blockIdx.x * BlockThreads + threadIdx.x;
  if (t >= static_cast<std::uint32_t>(num_tasks)) return;
  auto context = program.begin(t);
  while (!detail::step_divergent(program, context)) {
  }
  program.end(t, context);
}

//! Grid-stride over [0, num_tasks), for counts past 2^31 (Index 64-bit) and for the budgeted
//! pass's shape. Index is 32-bit for up to 2^31 tasks (then no id plus the stride can wrap).
template <class Program, int BlockThreads, class Index>
__global__ void __launch_bounds__(BlockThreads)
    direct_kernel(const Program program, const task_id num_tasks) {
  const auto count = static_cast<Index>(num_tasks);
  const auto stride = static_cast<Index>(gridDim.x) * BlockThreads;
  for (Index t = static_cast<Index>(blockIdx.x) * BlockThreads + threadIdx.x; t < count;
       t += stride) {
    auto context = program.begin(t);
    while (!detail::step_divergent(program, context)) {
    }
    program.end(t, context);
  }
}

}  // namespace microsched
