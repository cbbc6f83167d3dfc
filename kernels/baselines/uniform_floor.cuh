#pragma once
//! @file uniform_floor.cuh
//! The uniform-work floor: every thread runs exactly `steps_per_task` steps of the same step code
//! (the mean over all tasks), ignoring whether its task finished, so no warp ever diverges. Its
//! time is what the same total work costs without divergence: the limit a scheduler approaches.
//! Its outputs are meaningless; point the program at scratch buffers. The kernel is the library's
//! (check/prize_kernels.cuh), which measure_prize() runs too.

#include <cuda_runtime_api.h>

#include "microsched/check/prize_kernels.cuh"
#include "microsched/error.hpp"
#include "microsched/task_program.hpp"
#include "vanilla.cuh"

namespace microsched::baselines {

template <task_program Program>
void run_uniform_floor(const Program& program, task_id num_tasks, unsigned long long steps_per_task,
                       cudaStream_t stream) {
  if (num_tasks == 0) return;
  ::microsched::detail::uniform_floor_kernel<Program>
      <<<vanilla_blocks(num_tasks), vanilla_block_threads, 0, stream>>>(
          program, num_tasks, steps_per_task, nullptr, nullptr);
  MICROSCHED_CHECK_LAUNCH("uniform_floor_kernel");
}

}  // namespace microsched::baselines
