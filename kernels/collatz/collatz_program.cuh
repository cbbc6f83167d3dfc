// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file collatz_program.cuh
//! Collatz total stopping times as a task program: task t starts at `first + t` (64-bit) and
//! steps n -> n/2 or 3n+1 until the orbit reaches 1. Integer steps of a few instructions, tasks
//! of about 230 steps with a mild tail (2^24 starts from 2^32: mean 229.83, p99 420, max 968, the
//! slowest of 32 neighbours 1.51x the mean; `task_lengths collatz`): the case where per-task and
//! per-deferral costs, not divergence, decide.

#include <cstdint>

#include "collatz/collatz_math.hpp"
#include "microsched/config.hpp"

namespace microsched::kernels {

struct collatz_program {
  struct context {
    std::uint64_t value = 1;
    std::uint32_t steps = 0;
  };

  std::uint64_t first = 2;             //!< start of task 0; at least 2
  std::uint32_t* steps_out = nullptr;  //!< total stopping time per task

  __device__ context begin(task_id t) const { return {first + t, 0}; }

  __device__ bool step(context& c) const {
    c.value = collatz_next(c.value);
    ++c.steps;
    return c.value == 1;
  }

  //! The scheduler's fast path: up to `budget` steps, the budget folded into the loop test.
  __device__ bool advance(context& c, int budget) const {
    const std::uint32_t stop = c.steps + static_cast<std::uint32_t>(budget);
    do {
      c.value = collatz_next(c.value);
      ++c.steps;
    } while (c.value != 1 && c.steps != stop);
    return c.value == 1;
  }

  __device__ void end(task_id t, const context& c) const { steps_out[t] = c.steps; }
};

}  // namespace microsched::kernels
