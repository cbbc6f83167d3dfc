// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file multi_gpu_workloads.cuh
//! The multi-GPU benchmark's workloads, shared by the one-process and the MPI programs: a large
//! Julia view, Monte Carlo walks, and a skewed range (walks whose long tasks sit in the first
//! eighth of the range, as a real image or a sorted input has them).

#include <curand_kernel.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "checked_cli.hpp"
#include "julia/julia_program.cuh"
#include "microsched/config.hpp"
#include "montecarlo/montecarlo_program.cuh"

namespace microsched::bench {

//! Monte Carlo walks whose kill probability is `long_kill` for tasks in [0, long_end) and `kill`
//! for the others: the long tasks make the first part of the range the expensive one.
struct skewed_walk_program {
  struct context {
    curandStatePhilox4_32_10_t rng;
    std::uint32_t steps = 0;
    float kill = 0;
  };
  float kill = 0.01f;
  float long_kill = 0.01f / 16;
  task_id long_end = 0;
  unsigned long long seed = 1234;
  std::uint32_t* steps_out = nullptr;

  __device__ context begin(task_id t) const {
    context c;
    curand_init(seed, t, 0, &c.rng);
    c.kill = t < long_end ? long_kill : kill;
    return c;
  }
  __device__ bool step(context& c) const {
    const float4 u = curand_uniform4(&c.rng);
    bool killed = false;
    const auto consume = [&](float draw) {
      if (!killed) {
        ++c.steps;
        killed = draw < c.kill;
      }
    };
    consume(u.x);
    consume(u.y);
    consume(u.z);
    consume(u.w);
    return killed;
  }
  __device__ void end(task_id t, const context& c) const { steps_out[t] = c.steps; }
};

//! Sizes of the three workloads.
struct workload_sizes {
  int julia_side = 16384;             //!< pixels per side of the Julia view
  task_id walks = task_id{1} << 28;   //!< Monte Carlo walks
  task_id skewed = task_id{1} << 26;  //!< skewed walks
};

//! The options both benchmarks take: the workloads' sizes, warm-up and timed runs.
inline void add_workload_options(CLI::App& app, workload_sizes& sizes, int& warmup,
                                 int& repetitions) {
  programs::add_checked(app, "--julia-side", sizes.julia_side, "pixels per side", 1, 60000);
  programs::add_checked(app, "--walks", sizes.walks, "Monte Carlo walks", task_id{1},
                        task_id{1} << 34);
  programs::add_checked(app, "--skewed", sizes.skewed, "skewed walks", task_id{1},
                        task_id{1} << 34);
  programs::add_checked(app, "--warmup", warmup, "untimed runs first (calibration)", 0, 1000);
  programs::add_checked(app, "--repetitions", repetitions, "timed runs (median)", 1, 1000);
}

//! The islands view at offset 0, crunch 4096: interior islands scattered over the image.
[[nodiscard]] inline kernels::julia_program<float> julia_view_program(int side,
                                                                      std::uint32_t* out) {
  kernels::julia_program<float> p;
  p.view = kernels::make_julia_view<float>(side, side, 0.0);
  p.crunch = 4096;
  p.out = out;
  return p;
}

//! Walks of 100 draws on average (kill 0.01).
[[nodiscard]] inline kernels::montecarlo_program walks_program(std::uint32_t* steps,
                                                               std::uint32_t* sums) {
  kernels::montecarlo_program p;
  p.kill_probability = 0.01f;
  p.steps_out = steps;
  p.sum_out = sums;
  return p;
}

//! 16x longer walks in the first eighth of `count`: that eighth holds two thirds of the work.
[[nodiscard]] inline skewed_walk_program skewed_program(task_id count, std::uint32_t* steps) {
  skewed_walk_program p;
  p.long_end = count / 8;
  p.steps_out = steps;
  return p;
}

}  // namespace microsched::bench
