// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file julia_scenes.hpp
//! The named Julia views and the pixel grid, in plain C++ so that host tools and tests see the
//! same scenes as the kernels.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "microsched/index/task_index.hpp"

namespace microsched::kernels {

//! Where the view sits for an offset in [0, 2]: 0 shows the whole set (strongly divergent), 2 a
//! window of side 0.1 around the scene's target (for the interior views, wholly inside one
//! interior component: every pixel runs to the crunch, the paper's black box), 1 halfway between.
template <class T>
struct julia_view {
  T center_x = 0;
  T center_y = 0;
  T pixel_size = 0;  //!< plane units per pixel
  int width = 0;
  int height = 0;
  //! Task id -> (px, py), row-major, the division by the width done once on the host: with tasks
  //! of ten iterations, a 64-bit `%` and `/` in `begin` cost about as much as the task.
  task_index_2d pixels{};
};

//! A Julia parameter c and the point the offset zooms towards.
struct julia_scene {
  const char* name;
  double cx;
  double cy;
  double target_x;
  double target_y;
  const char* help;
};

//! c = -0.54 + 0.60i (the default): an attracting cycle whose basin is a dust of small islands
//! (3% of the full view's pixels). A warp that touches an island runs the whole crunch while its
//! other lanes escape within a few iterations: on the CPU, the mean over warps (32 pixels of a
//! row) of the slowest lane is 3.65x the mean pixel at 2048^2, crunch 4096. The island around the
//! critical point 0 holds the offset-2 window; attracting orbits stay inside it in float and
//! double at every crunch.
inline constexpr julia_scene julia_islands{
    .name = "islands",
    .cx = -0.54,
    .cy = 0.60,
    .target_x = 0.0,
    .target_y = 0.0,
    .help = "c = -0.54+0.60i, interior islands scattered over the set (default)"};
//! c = -0.391 - 0.587i: a Siegel disk (orbits rotate forever, never escape) around the fixed point
//! the offset zooms towards. Its full view is far less divergent than the islands (the slowest
//! lane is 1.78x the mean pixel), and at crunch 16384 rounding lets some disk orbits escape.
inline constexpr julia_scene julia_siegel{
    .name = "siegel",
    .cx = -0.391,
    .cy = -0.587,
    .target_x = -0.36889,
    .target_y = -0.33780,
    .help = "c = -0.391-0.587i, one Siegel disk (less divergent)"};

// The escaping views: c lies outside the Mandelbrot set, so every orbit escapes and the Julia set
// is a dust. Most pixels escape within a few iterations; pixels near the dust follow it for
// hundreds to thousands. Iterations per pixel at offset 0, crunch 4096 (no pixel reaches it):
// mean / p99 / max, and "warp", the mean over warps (32 pixels of a row) of the slowest pixel over
// the mean pixel, about what vanilla pays over the floor. From the kernels' arithmetic on the CPU:
//   task_lengths julia view=NAME width=N height=N precision=P
//                  2048^2 float       2048^2 double      4096^2 float       4096^2 double
//   seahorse  17.96 / 229 /  999  17.96 / 229 /  959  17.96 / 229 / 1129  17.96 / 229 / 1152
//             warp 2.50           warp 2.50           warp 2.20           warp 2.20
//   dust      26.31 / 427 / 2191  26.34 / 428 / 2576  26.30 / 427 / 2237  26.29 / 426 / 2761
//             warp 3.77           warp 3.79           warp 3.45           warp 3.44
//   neck       9.41 / 184 / 1029   9.40 / 184 / 1104   9.41 / 184 / 1239   9.40 / 184 / 1145
//             warp 3.24           warp 3.24           warp 2.87           warp 2.87

//! c = -0.75 + 0.1i: in the seahorse valley, just outside the neck between the main cardioid and
//! the period-2 bulb.
inline constexpr julia_scene julia_seahorse{
    .name = "seahorse",
    .cx = -0.75,
    .cy = 0.1,
    .target_x = 0.0,
    .target_y = 0.0,
    .help =
        "c = -0.75+0.1i, escaping dust near the seahorse valley (mean 18 iterations, "
        "tail ~1000)"};
//! c = -0.8 + 0.156i: a classic Fatou dust; the longest tail of the three escaping views.
inline constexpr julia_scene julia_dust{
    .name = "dust",
    .cx = -0.8,
    .cy = 0.156,
    .target_x = 0.0,
    .target_y = 0.0,
    .help = "c = -0.8+0.156i, escaping dust (mean 26 iterations, tail ~2500)"};
//! c = -1.25 + 0.05i: just off the neck between the period-2 and period-4 bulbs; the shortest
//! tasks of the three.
inline constexpr julia_scene julia_neck{
    .name = "neck",
    .cx = -1.25,
    .cy = 0.05,
    .target_x = 0.0,
    .target_y = 0.0,
    .help =
        "c = -1.25+0.05i, escaping dust near the period-4 neck (mean 9 iterations, "
        "tail ~1000)"};

//! Every named view, the default first.
[[nodiscard]] inline std::vector<julia_scene> julia_scenes() {
  return {julia_islands, julia_siegel, julia_seahorse, julia_dust, julia_neck};
}

//! The view called `name`, or nullptr.
[[nodiscard]] inline const julia_scene* find_julia_scene(const std::string& name) {
  static const std::vector<julia_scene> scenes = julia_scenes();
  for (const auto& s : scenes) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

//! Throws std::invalid_argument (from task_index_2d) for an empty image or 2^32 pixels or more.
template <class T>
[[nodiscard]] julia_view<T> make_julia_view(int width, int height, double offset,
                                            const julia_scene& scene = julia_islands) {
  const double t = offset / 2.0;
  const double side = 3.2 + (0.1 - 3.2) * t;  // 3.2 covers the whole set; 0.1 fits an island
  const int longest = width > height ? width : height;
  return {static_cast<T>(scene.target_x * t),
          static_cast<T>(scene.target_y * t),
          static_cast<T>(side / longest),
          width,
          height,
          task_index_2d(static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height))};
}

//! Iterations of pixel (px, py) on the host: julia_program's begin and step in the same rounding
//! (std::fma is correctly rounded, like the device's fma), so the counts equal the kernels' where
//! the pixel's coordinate is computed alike. The kernels' begin leaves `center + u * pixel_size`
//! to nvcc, which contracts it into one fma; with center 0 (offset 0) both round u * pixel_size
//! once, and the counts agree bit for bit (checked on the GPU in test_exactly_once).
template <class T>
[[nodiscard]] std::uint32_t julia_escape_time(const julia_view<T>& view, T cx, T cy,
                                              std::uint32_t crunch, int px, int py) {
  T x = std::fma(T(px) + T(0.5) - T(view.width) / 2, view.pixel_size, view.center_x);
  T y = std::fma(T(py) + T(0.5) - T(view.height) / 2, view.pixel_size, view.center_y);
  std::uint32_t iterations = 0;
  bool escaped = false;
  do {
    const T next_x = std::fma(x, x, std::fma(-y, y, cx));
    const T next_y = std::fma(T(2) * x, y, cy);
    x = next_x;
    y = next_y;
    ++iterations;
    escaped = std::fma(x, x, y * y) > T(4);
  } while (!escaped && iterations < crunch);
  return iterations;
}

}  // namespace microsched::kernels
