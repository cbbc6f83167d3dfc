// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file walk_program.cuh
//! Random walks as a task program (walk_math.hpp): task t walks from 0 until it reaches
//! -half_width or +half_width. A step is a handful of integer instructions and a task takes
//! half_width^2 steps on average (2^24 walks at half-width 3: mean 9, max 119; at 4: mean 16,
//! max 224; `task_lengths walk`): the shortest tasks of the benchmark, where a scheduler's
//! per-task cost decides.

#include <cstdint>

#include "microsched/config.hpp"
#include "walk/walk_math.hpp"

namespace microsched::kernels {

struct walk_program {
  using context = walk_state;

  std::uint32_t seed = 0;
  std::int32_t half_width = 4;
  std::uint32_t max_steps = 1u << 20;
  std::uint32_t* steps_out = nullptr;  //!< steps per walk

  __device__ context begin(task_id t) const { return {walk_seed(t, seed), 0, 0}; }
  __device__ bool step(context& c) const { return walk_step(c, half_width, max_steps); }
  __device__ void end(task_id t, const context& c) const { steps_out[t] = c.steps; }
};

}  // namespace microsched::kernels
