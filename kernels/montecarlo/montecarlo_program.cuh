// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file montecarlo_program.cuh
//! Termination divergence (frey2012 §5.1): each step draws a uniform random number and the task
//! ends when it falls below the kill probability, so task lengths are geometric with mean 1/p.
//! A step draws one Philox block of four numbers (curand_uniform4) and consumes them in order,
//! stopping at the first below the kill probability: one call per four draws keeps every lane
//! on the same path through cuRAND, where single draws branch on a per-lane phase that the
//! scheduler would misalign. Counts and sums are exactly those of one draw per step.
//! Philox is counter-based: task t's stream depends only on (seed, t), never on which lane or
//! warp runs it, so every schedule reproduces vanilla's results exactly (the paper used Sobol32).

#include <curand_kernel.h>

#include <cstdint>

#include "microsched/config.hpp"

namespace microsched::kernels {

struct montecarlo_program {
  struct context {
    curandStatePhilox4_32_10_t rng;
    std::uint32_t steps = 0;
    float sum = 0;  //!< the "work": a running sum of the draws
  };

  float kill_probability = 0.01f;
  unsigned long long seed = 1234;
  std::uint32_t* steps_out = nullptr;  //!< draws per task
  std::uint32_t* sum_out = nullptr;    //!< bits of the float sum of draws per task

  __device__ context begin(task_id t) const {
    context c;
    curand_init(seed, t, 0, &c.rng);
    return c;
  }

  __device__ bool step(context& c) const {
    const float4 u = curand_uniform4(&c.rng);
    bool killed = false;
    const auto consume = [&](float draw) {
      if (!killed) {
        ++c.steps;
        c.sum += draw;
        killed = draw < kill_probability;
      }
    };
    consume(u.x);
    consume(u.y);
    consume(u.z);
    consume(u.w);
    return killed;
  }

  __device__ void end(task_id t, const context& c) const {
    steps_out[t] = c.steps;
    sum_out[t] = __float_as_uint(c.sum);
  }
};

}  // namespace microsched::kernels
