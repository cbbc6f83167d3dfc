// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file wavefront.cuh
//! The wavefront baseline: the schedule production path tracers run between kernels (pbrt-v4's
//! queues; Shader Execution Reordering does it in hardware), built with CUB from the same
//! managed-branch program as the vanilla kernel.
//!
//! A round is one kernel per managed branch K, one thread per task waiting in K's queue: the
//! thread loads the task's context, takes K's then path (the expensive one: every thread of the
//! warp takes it together), then steps the task on until it needs a then path again or ends.
//! The tasks that stop at branch J are compacted into J's queue for the next round
//! (cub::BlockScan inside the kernel, one atomicAdd per block and branch, so the host never
//! waits for a count to size a launch). Round 0 begins every task. Rounds repeat until no task
//! waits; the host looks at a round's counts only after the next round is queued, so the GPU
//! never idles on the host.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cub/block/block_scan.cuh>
#include <string>

#include "microsched/device_buffer.hpp"
#include "microsched/error.hpp"
#include "microsched/switching/managed_program.hpp"
#include "microsched/switching/task_context.hpp"

namespace microsched::switching_workloads::detail {

//! The gate of the wavefront kernels. An active context that needs a then path stops before it
//! (state parked(K)) and returns to the kernel; a context resumed at branch K (state parked(K))
//! skips the step's code before K (active() is false there) and takes K's then path. Else paths
//! run at once.
struct wavefront_gate {
  static constexpr bool collective = false;
  std::uint8_t state = switching::state_active;

  [[nodiscard]] __device__ __forceinline__ bool active() const {
    return state == switching::state_active;
  }
  template <int K>
  [[nodiscard]] __device__ __forceinline__ bool take(switching::branch_index<K>, bool cond) {
    if (state == switching::state_parked(K)) {
      state = switching::state_active;
      return true;
    }
    if (state == switching::state_active && cond) state = switching::state_parked(K);
    return false;
  }
};

inline constexpr int wavefront_block_threads = 256;

//! One round. branch < 0: begins tasks 0..n-1; else resumes the tasks of `in` (in_count of
//! them, read on the device) at that branch. A task that ends is ended here; one that stops
//! before branch J has its context stored and its id appended to out + J * capacity.
template <class Program, int BlockThreads>
__global__ void __launch_bounds__(BlockThreads)
    wavefront_round(const Program program, typename Program::context* contexts, int branch,
                    std::uint32_t n, const std::uint32_t* in, const std::uint32_t* in_count,
                    std::uint32_t* out, std::uint32_t* out_count, std::uint32_t capacity) {
  using scan = cub::BlockScan<std::uint32_t, BlockThreads>;
  __shared__ typename scan::TempStorage scan_storage;
  __shared__ std::uint32_t base;
  const std::uint32_t i = blockIdx.x * BlockThreads + threadIdx.x;
  const std::uint32_t count = branch < 0 ? n : *in_count;
  std::uint8_t waits = switching::state_finished;
  std::uint32_t task = 0;
  if (i < count) {
    task = branch < 0 ? i : in[i];
    wavefront_gate gate;
    typename Program::context c;
    if (branch < 0) {
      c = program.begin(task);
    } else {
      c = contexts[task];
      gate.state = switching::state_parked(branch);
    }
    for (;;) {
      const bool finished = program.step(c, gate);
      if (!gate.active()) break;  // waits before a then path
      if (finished) {
        program.end(task, c);
        break;
      }
    }
    if (!gate.active()) {
      contexts[task] = c;
      waits = gate.state;
    }
  }
#pragma unroll 1
  for (int k = 0; k < Program::managed_branches; ++k) {
    const std::uint32_t flag = waits == switching::state_parked(k) ? 1u : 0u;
    std::uint32_t offset = 0;
    std::uint32_t total = 0;
    scan(scan_storage).ExclusiveSum(flag, offset, total);
    if (threadIdx.x == 0 && total != 0) base = atomicAdd(out_count + k, total);
    __syncthreads();
    if (flag != 0) out[static_cast<std::size_t>(k) * capacity + base + offset] = task;
    __syncthreads();  // the scan storage and `base` are reused by the next branch
  }
}

//! Page-locked host memory for the round counts (read while later rounds run).
class pinned_counts {
 public:
  explicit pinned_counts(std::size_t count) {
    MICROSCHED_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(*data_)));
  }
  ~pinned_counts() { cudaFreeHost(data_); }
  pinned_counts(const pinned_counts&) = delete;
  pinned_counts& operator=(const pinned_counts&) = delete;
  [[nodiscard]] std::uint32_t* data() const { return data_; }

 private:
  std::uint32_t* data_ = nullptr;
};

class cuda_event {
 public:
  cuda_event() { MICROSCHED_CUDA_TRY(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~cuda_event() { cudaEventDestroy(event_); }
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;
  [[nodiscard]] cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

//! The buffers of the wavefront schedule for up to `n` tasks of contexts `Context` and
//! `Branches` managed branches: the contexts by task, two generations of one queue per branch,
//! their counts.
template <class Context, int Branches>
class wavefront {
 public:
  explicit wavefront(task_id n)
      : n_(checked_tasks(n)),
        contexts_(static_cast<std::size_t>(n)),
        queues_{device_buffer<std::uint32_t>(Branches * static_cast<std::size_t>(n)),
                device_buffer<std::uint32_t>(Branches * static_cast<std::size_t>(n))},
        counts_(2 * Branches),
        host_counts_(2 * Branches) {}

  [[nodiscard]] task_id tasks() const { return n_; }
  //! Rounds of the last run (round 0 begins the tasks; the last round finds every queue empty).
  [[nodiscard]] int rounds() const { return rounds_; }

  //! Runs every task of `program` (a managed-branch program with Context and Branches) to its
  //! end; stream-ordered, but the host waits for each round's counts one round behind.
  template <class Program>
  void run(const Program& program, cudaStream_t stream) {
    static_assert(Program::managed_branches == Branches);
    constexpr int threads = wavefront_block_threads;
    const auto blocks = [](std::uint64_t items) {
      return static_cast<unsigned>((items + threads - 1) / threads);
    };
    const auto n = static_cast<std::uint32_t>(n_);
    std::uint64_t bound = n;  // tasks that can wait in any queue of the round being queued
    for (int r = 0;; ++r) {
      const int now = r & 1;
      if (r >= 2) {
        // Round r - 2's counts (in host slot `now`): round r - 1 resumes at most that many.
        MICROSCHED_CUDA_TRY(cudaEventSynchronize(done_[now].get()));
        bound = 0;
        for (int k = 0; k < Branches; ++k) bound += host_counts_.data()[now * Branches + k];
        if (bound == 0) {  // round r - 1 had nothing to resume: every task has ended
          rounds_ = r;
          return;
        }
      }
      std::uint32_t* out_count = counts_.data() + now * Branches;
      MICROSCHED_CUDA_TRY(cudaMemsetAsync(out_count, 0, Branches * sizeof(std::uint32_t), stream));
      std::uint32_t* out = queues_[now].data();
      const std::uint32_t* in = queues_[now ^ 1].data();
      const std::uint32_t* in_count = counts_.data() + (now ^ 1) * Branches;
      for (int k = r == 0 ? -1 : 0; k < (r == 0 ? 0 : Branches); ++k) {
        const unsigned grid = blocks(bound);
        if (grid == 0) continue;
        wavefront_round<Program, threads><<<grid, threads, 0, stream>>>(
            program, contexts_.data(), k, n, k < 0 ? nullptr : in + std::size_t(k) * n,
            k < 0 ? nullptr : in_count + k, out, out_count, n);
        MICROSCHED_CHECK_LAUNCH("wavefront_round");
      }
      MICROSCHED_CUDA_TRY(cudaMemcpyAsync(host_counts_.data() + now * Branches, out_count,
                                          Branches * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                          stream));
      MICROSCHED_CUDA_TRY(cudaEventRecord(done_[now].get(), stream));
    }
  }

 private:
  static task_id checked_tasks(task_id n) {
    if (n == 0 || n > 0xffffffffull) {
      throw_invalid("wavefront tasks", n, "must be in 1..2^32-1 (queue entries are 32-bit)");
    }
    return n;
  }

  task_id n_;
  device_buffer<Context> contexts_;
  device_buffer<std::uint32_t> queues_[2];
  device_buffer<std::uint32_t> counts_;
  pinned_counts host_counts_;
  cuda_event done_[2];
  int rounds_ = 0;
};

}  // namespace microsched::switching_workloads::detail
