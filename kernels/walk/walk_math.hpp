// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file walk_math.hpp
//! A symmetric random walk on the integers in plain C++, shared by the task program and the host
//! tools and tests: from 0, one step left or right per xorshift32 draw, until the walk reaches
//! -half_width or +half_width. A walk takes half_width^2 steps on average, with a geometric
//! tail: short tasks of a few instructions per step.

#include <cstdint>

#include "lowbias32.hpp"
#include "microsched/config.hpp"

namespace microsched::kernels {

//! A walk's state: its generator, its position and the steps taken.
struct walk_state {
  std::uint32_t rng = 1;
  std::int32_t position = 0;
  std::uint32_t steps = 0;
};

//! xorshift32 (Marsaglia 2003): period 2^32 - 1 over the nonzero states.
MICROSCHED_HD std::uint32_t xorshift32(std::uint32_t s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

//! The generator's start for a task: both halves of the 64-bit id and the seed, mixed by a
//! 32-bit finaliser (lowbias32), so that neighbouring tasks walk independently. Never 0, the
//! state xorshift32 cannot leave.
MICROSCHED_HD std::uint32_t walk_seed(std::uint64_t task, std::uint32_t seed) {
  const std::uint32_t s = lowbias32(static_cast<std::uint32_t>(task) * 2654435761u ^
                                    static_cast<std::uint32_t>(task >> 32) * 0x85ebca6bu ^ seed);
  return s != 0 ? s : 1u;
}

//! One step: the generator's top bit picks the direction. True once the walk has reached a
//! bound or taken `max_steps` steps.
MICROSCHED_HD bool walk_step(walk_state& w, std::int32_t half_width, std::uint32_t max_steps) {
  w.rng = xorshift32(w.rng);
  w.position += (w.rng >> 31) != 0 ? 1 : -1;
  ++w.steps;
  return w.position >= half_width || w.position <= -half_width || w.steps >= max_steps;
}

//! The steps of task `task`'s walk.
MICROSCHED_HD std::uint32_t walk_total_steps(std::uint64_t task, std::uint32_t seed,
                                             std::int32_t half_width, std::uint32_t max_steps) {
  walk_state w{walk_seed(task, seed), 0, 0};
  while (!walk_step(w, half_width, max_steps)) {
  }
  return w.steps;
}

}  // namespace microsched::kernels
