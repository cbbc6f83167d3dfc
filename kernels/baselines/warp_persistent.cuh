// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file warp_persistent.cuh
//! Persistent threads at warp granularity (Aila–Laine; the old CUDA SDK Mandelbrot): a warp grabs
//! 32 consecutive tasks with one atomic, every lane runs its task to completion, repeat. Balances
//! work between warps, not within one.

#include <cuda_runtime_api.h>

#include "microsched/device.hpp"
#include "microsched/error.hpp"
#include "microsched/kernel_resources.hpp"
#include "microsched/pool/global_task_pool.cuh"
#include "microsched/task_program.hpp"

namespace microsched::baselines {

inline constexpr int warp_persistent_block_threads = 128;

template <task_program Program>
__global__ void __launch_bounds__(warp_persistent_block_threads)
    warp_persistent_kernel(const Program program, const global_pool_ref pool) {
  const unsigned lane = threadIdx.x % 32;
  for (;;) {
    const task_id base = pool.grab(full_mask, 32, lane);
    if (base >= pool.total) return;  // warp-uniform
    const task_id t = base + lane;
    if (t < pool.total) {
      auto context = program.begin(t);
      while (!program.step(context)) {
      }
      program.end(t, context);
    }
    __syncwarp();
  }
}

//! Owns the pool counter; launches a grid sized from the SM count and occupancy.
template <task_program Program>
class warp_persistent_runner {
 public:
  warp_persistent_runner() : sm_count_(current_sm_count()) {
    resources_ = query_resources(warp_persistent_kernel<Program>, warp_persistent_block_threads);
  }
  [[nodiscard]] const kernel_resources& resources() const { return resources_; }
  //! One full wave: as many blocks as fit on every SM.
  [[nodiscard]] unsigned grid_blocks() const {
    return static_cast<unsigned>(sm_count_ * resources_.max_blocks_per_sm);
  }

  void run(const Program& program, task_id num_tasks, cudaStream_t stream) {
    if (num_tasks == 0) return;
    pool_.reset(stream);
    const unsigned blocks = grid_blocks();
    warp_persistent_kernel<Program>
        <<<blocks, warp_persistent_block_threads, 0, stream>>>(program, pool_.ref(num_tasks));
    MICROSCHED_CHECK_LAUNCH("warp_persistent_kernel");
  }

 private:
  int sm_count_;
  kernel_resources resources_;
  global_task_pool pool_;
};

}  // namespace microsched::baselines
