#pragma once
//! @file julia_program.cuh
//! The Julia set z -> z^2 + c as a task program: one task per pixel, one step per iteration.
//! The step uses explicit fma() so no compiler contraction can differ between the vanilla,
//! scheduled and floor kernels: Julia orbits are chaotic and one contraction changes counts.

#include <cstdint>

#include "microsched/config.hpp"

namespace microsched::kernels {

//! Where the view sits for an offset in [0, 2]: 0 shows the whole set (strongly divergent), 2 a
//! window wholly inside one interior component (every pixel runs to the crunch: the paper's
//! black box), 1 halfway between.
template <class T>
struct julia_view {
  T center_x = 0;
  T center_y = 0;
  T pixel_size = 0;  //!< plane units per pixel
  int width = 0;
  int height = 0;
};

//! A Julia parameter c and the point the offset zooms towards (inside an interior component).
struct julia_scene {
  double cx;
  double cy;
  double target_x;
  double target_y;
};

//! c = -0.54 + 0.60i (the default): an attracting cycle whose basin is a dust of small islands
//! (3% of the full view's pixels). A warp that touches an island runs the whole crunch while its
//! other lanes escape within a few iterations: on the CPU, the mean over warps (32 pixels of a
//! row) of the slowest lane is 3.65x the mean pixel at 2048^2, crunch 4096. The island around the
//! critical point 0 holds the offset-2 window; attracting orbits stay inside it in float and
//! double at every crunch.
inline constexpr julia_scene julia_islands{-0.54, 0.60, 0.0, 0.0};
//! c = -0.391 - 0.587i: a Siegel disk (orbits rotate forever, never escape) around the fixed point
//! the offset zooms towards. The first view measured; its full view is far less divergent (the
//! slowest lane is 1.78x the mean pixel), and at crunch 16384 rounding lets some disk orbits
//! escape.
inline constexpr julia_scene julia_siegel{-0.391, -0.587, -0.36889, -0.33780};

template <class T>
[[nodiscard]] julia_view<T> make_julia_view(int width, int height, double offset,
                                            const julia_scene& scene = julia_islands) {
  const double t = offset / 2.0;
  const double side = 3.2 + (0.1 - 3.2) * t;  // 3.2 covers the whole set; 0.1 fits an island
  const int longest = width > height ? width : height;
  return {static_cast<T>(scene.target_x * t), static_cast<T>(scene.target_y * t),
          static_cast<T>(side / longest), width, height};
}

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
  std::uint32_t crunch = 4096;     //!< maximum iterations
  std::uint32_t* out = nullptr;    //!< iterations per pixel, row-major

  // example-begin julia-task-program
  __device__ context begin(task_id t) const {
    const auto px = static_cast<int>(t % static_cast<task_id>(view.width));
    const auto py = static_cast<int>(t / static_cast<task_id>(view.width));
    context c;
    c.x = view.center_x + (T(px) + T(0.5) - T(view.width) / 2) * view.pixel_size;
    c.y = view.center_y + (T(py) + T(0.5) - T(view.height) / 2) * view.pixel_size;
    return c;
  }

  //! One iteration; true when the orbit escaped.
  __device__ bool iterate(context& c) const {
    const T x = fma(c.x, c.x, fma(-c.y, c.y, cx));  // x^2 - y^2 + cx
    const T y = fma(T(2) * c.x, c.y, cy);            // 2xy + cy
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
  //! iteration, the window folded into the iteration limit.
  __device__ bool advance(context& c, int budget) const {
    const std::uint32_t window_end = c.iterations + static_cast<std::uint32_t>(budget);
    const std::uint32_t stop = window_end < crunch ? window_end : crunch;
    bool escaped;
    do {
      escaped = iterate(c);
    } while (!escaped && c.iterations < stop);
    return escaped || c.iterations >= crunch;
  }
  // example-end julia-advance
};

}  // namespace microsched::kernels
