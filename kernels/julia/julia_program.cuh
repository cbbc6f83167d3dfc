// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file julia_program.cuh
//! The Julia set z -> z^2 + c as a task program: one task per pixel, one step per iteration.
//! The step uses explicit fma() so no compiler contraction can differ between the vanilla,
//! scheduled and floor kernels: Julia orbits are chaotic and one contraction changes counts.
//! julia_escape_time (julia_scenes.hpp) is the same arithmetic on the host.

#include <cstdint>

#include "julia/julia_scenes.hpp"
#include "microsched/config.hpp"

namespace microsched::kernels {

template <class T>
struct julia_program {
  struct context {
    T x = 0;
    T y = 0;
    std::uint32_t iterations = 0;
  };

  julia_view<T> view{};
  T cx = T(julia_islands.cx);
  T cy = T(julia_islands.cy);
  std::uint32_t crunch = 4096;   //!< maximum iterations
  std::uint32_t* out = nullptr;  //!< iterations per pixel, row-major

  // example-begin julia-task-program
  __device__ context begin(task_id t) const {
    const auto [px, py] = view.pixels(t);  // a multiply and shifts, no 64-bit division
    context c;
    c.x = view.center_x + (T(px) + T(0.5) - T(view.width) / 2) * view.pixel_size;
    c.y = view.center_y + (T(py) + T(0.5) - T(view.height) / 2) * view.pixel_size;
    return c;
  }

  //! One iteration; true when the orbit escaped.
  __device__ bool iterate(context& c) const {
    const T x = fma(c.x, c.x, fma(-c.y, c.y, cx));  // x^2 - y^2 + cx
    const T y = fma(T(2) * c.x, c.y, cy);           // 2xy + cy
    c.x = x;
    c.y = y;
    ++c.iterations;
    return fma(x, x, y * y) > T(4);
  }

  __device__ bool step(context& c) const { return iterate(c) || c.iterations >= crunch; }

  __device__ void end(task_id t, const context& c) const { out[t] = c.iterations; }
  // example-end julia-task-program

  // example-begin julia-advance
  //! The scheduler's fast path: up to `budget` iterations with one termination test per
  //! iteration, the budget folded into the iteration limit.
  __device__ bool advance(context& c, int budget) const {
    const std::uint32_t budget_end = c.iterations + static_cast<std::uint32_t>(budget);
    const std::uint32_t stop = budget_end < crunch ? budget_end : crunch;
    bool escaped;
    do {
      escaped = iterate(c);
    } while (!escaped && c.iterations < stop);
    return escaped || c.iterations >= crunch;
  }
  // example-end julia-advance
};

}  // namespace microsched::kernels
