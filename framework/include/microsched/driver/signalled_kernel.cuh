// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file signalled_kernel.cuh
//! The direct mapping that leaves a work signature (schedule/call_signal.hpp): the textbook
//! one-thread-per-task kernel in every block but a sampled few, which also read the GPU's clock
//! (and count their steps, when asked), and write one slot each to host memory. The host reads the
//! slots at the next call, so the signature costs the caller no event, copy or wait, and the
//! unsampled blocks run the user's loop unchanged.

#include <cstdint>

#include "microsched/config.hpp"
#include "microsched/driver/counting_kernel.cuh"
#include "microsched/driver/direct_kernel.cuh"
#include "microsched/schedule/call_signal.hpp"

namespace microsched {

//! Where a signalled run writes (a device pointer to host memory) and what it tags its slots with.
struct signal_ref {
  signal_slot* slots = nullptr;
  std::uint32_t sample_mask = 0;  //!< a block reports where (blockIdx.x & mask) == 0
  std::uint32_t shift = 0;        //!< its slot: blockIdx.x >> shift
  std::uint32_t tag = 0;
  //! The sampled blocks count steps (an add an iteration, on the critical path of work whose
  //! blocks all take as long); else they read the clock alone.
  bool count_steps = false;
};

namespace detail {
__device__ __forceinline__ unsigned long long gpu_clock_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
//! A sampled block's slot: two 16-byte stores, each with the tag (call_signal.hpp), no fence.
//! `warp_maxima` 0: the block did not count.
__device__ __forceinline__ void write_slot(const signal_ref& signal, unsigned long long start,
                                           unsigned over, unsigned long long steps,
                                           unsigned long long warp_maxima) {
  const auto saturated = [](unsigned long long v) {
    return static_cast<unsigned>(v < 0xffffffffull ? v : 0xffffffffull);
  };
  const unsigned long long elapsed = gpu_clock_ns() - start;
  auto* halves = reinterpret_cast<uint4*>(signal.slots + (blockIdx.x >> signal.shift));
  halves[0] = make_uint4(signal.tag, over, saturated(steps), saturated(warp_maxima));
  halves[1] = make_uint4(signal.tag, static_cast<unsigned>(start),
                         static_cast<unsigned>(start >> 32), saturated(elapsed));
}
}  // namespace detail

//! direct_kernel_one_per_thread with sampled blocks that report (up to 2^31 tasks, plain task
//! programs).
template <class Program, int BlockThreads>
__global__ void direct_kernel_signalled(const Program program, const task_id num_tasks,
                                        const signal_ref signal) {
  const std::uint32_t t = blockIdx.x * BlockThreads + threadIdx.x;
  if ((blockIdx.x & signal.sample_mask) != 0) {
    if (t >= static_cast<std::uint32_t>(num_tasks)) return;
    auto context = program.begin(t);
    while (!program.step(context)) {
    }
    program.end(t, context);
    return;
  }
  if (!signal.count_steps) {
    const unsigned long long start = detail::gpu_clock_ns();
    if (t < static_cast<std::uint32_t>(num_tasks)) {
      auto context = program.begin(t);
      while (!program.step(context)) {
      }
      program.end(t, context);
    }
    __syncthreads();
    if (threadIdx.x == 0) detail::write_slot(signal, start, 0, 0, 0);
    return;
  }
  // Shared counters, added to once per warp: fewer registers than a per-warp array summed by one
  // thread, and the kernel's registers are those of its heavier path.
  __shared__ unsigned long long block_start;
  __shared__ unsigned long long block_steps;
  __shared__ unsigned long long block_slowest;
  __shared__ unsigned block_over;
  if (threadIdx.x == 0) {
    block_start = detail::gpu_clock_ns();
    block_steps = 0;
    block_slowest = 0;
    block_over = 0;
  }
  __syncthreads();
  const auto steps = detail::run_counted<std::uint32_t>(program, t, num_tasks);
  const unsigned sum = __reduce_add_sync(full_mask, steps);
  const unsigned slowest = __reduce_max_sync(full_mask, steps);
  const unsigned over = __popc(__ballot_sync(full_mask, steps > step_counts::budget));
  if ((threadIdx.x & (warp_size - 1)) == 0) {
    atomicAdd(&block_steps, static_cast<unsigned long long>(sum));
    atomicAdd(&block_slowest, static_cast<unsigned long long>(slowest));  // the warp's maximum
    atomicAdd(&block_over, over);
  }
  __syncthreads();
  if (threadIdx.x == 0)
    detail::write_slot(signal, block_start, block_over, block_steps, block_slowest);
}

}  // namespace microsched
