// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file montecarlo_branch_program.cuh
//! Branch divergence test (frey2012 §5.1): an outer loop of `outer` iterations; each draws a
//! uniform number and, with probability p, enters a branch that sums `inner` more. One step is
//! one outer iteration, or with a march window of w, up to w outer iterations that stop at the
//! first that enters the branch (the numbers and the sums are the same for every window: the
//! per-visit cost of the scheduler is paid once per window); the branch is managed branch 0.
//!
//! Random numbers are counter-based Philox4x32-10 keyed by the seed, with the counter (outer
//! iteration, block of four, task): a task's numbers depend only on the task, never on the lane
//! that runs it, so every schedule reproduces the vanilla sums bit for bit.

#include <curand_philox4x32_x.h>

#include <cstdint>

#include "microsched/config.hpp"
#include "microsched/switching/managed_program.hpp"

namespace microsched::kernels {

struct montecarlo_branch_program {
  static constexpr int managed_branches = 1;

  struct context {
    std::uint32_t task_lo = 0;
    std::uint32_t task_hi = 0;
    std::uint32_t iteration = 0;
    std::uint32_t entered = 0;  //!< how often the branch ran
    float sum = 0;              //!< the work: the sum of every number drawn in the branch
  };

  float probability = 0.01f;
  std::uint32_t outer = 1000;
  std::uint32_t inner = 1000;
  unsigned long long seed = 1234;
  std::uint32_t march_window = 1;        //!< outer iterations one step marches at most (>= 1)
  std::uint32_t* sum_out = nullptr;      //!< bits of the float sum per task
  std::uint32_t* entered_out = nullptr;  //!< branch entries per task

  [[nodiscard]] __device__ __forceinline__ uint4 draw4(const context& c,
                                                       std::uint32_t block) const {
    const uint4 counter{c.iteration, block, c.task_lo, c.task_hi};
    const uint2 key{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)};
    return curand_Philox4x32_10(counter, key);
  }
  [[nodiscard]] static __device__ __forceinline__ float uniform(std::uint32_t bits) {
    return static_cast<float>(bits >> 8) * 0x1p-24f;  // [0, 1), 24 random bits
  }

  __device__ context begin(task_id t) const {
    context c;
    c.task_lo = static_cast<std::uint32_t>(t);
    c.task_hi = static_cast<std::uint32_t>(t >> 32);
    return c;
  }

  // example-begin montecarlo-branch-step
  template <class Gate>
  __device__ bool step(context& c, Gate& gate) const {
    bool enter = false;
    if (gate.active()) {
      // Iterations that skip the branch end inside the window; the window stops at the first
      // that enters it, at its last iteration, or at the task's last.
#pragma unroll 1
      for (std::uint32_t w = 1;; ++w) {
        enter = uniform(draw4(c, 0).x) < probability;
        if (enter || w >= march_window || c.iteration + 1 >= outer) break;
        ++c.iteration;
      }
    }
    if (gate.take(switching::branch<0>, enter)) {
      float sum = c.sum;
      for (std::uint32_t k = 0; k < inner; k += 4) {
        const uint4 u = draw4(c, 1 + k / 4);
        sum += uniform(u.x);
        if (k + 1 < inner) sum += uniform(u.y);
        if (k + 2 < inner) sum += uniform(u.z);
        if (k + 3 < inner) sum += uniform(u.w);
      }
      c.sum = sum;
      ++c.entered;
    }
    if (!gate.active()) return false;
    return ++c.iteration >= outer;
  }
  // example-end montecarlo-branch-step

  __device__ void end(task_id t, const context& c) const {
    sum_out[t] = __float_as_uint(c.sum);
    entered_out[t] = c.entered;
  }

  //! The automatic switching schedule's knob (switching/branch_forms.hpp): the sums stay.
  [[nodiscard]] montecarlo_branch_program with_march_window(int w) const {
    montecarlo_branch_program p = *this;
    p.march_window = static_cast<std::uint32_t>(w);
    return p;
  }
};

}  // namespace microsched::kernels
