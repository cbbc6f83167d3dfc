// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file raycast_program.cuh
//! Multi-layer isosurface ray casting of psi(3,2,1) (frey2012 §5.3) as a managed-branch program.
//! A step marches up to a window of samples; when the ray crosses one of the eight isosurfaces,
//! the managed branch refines the hit by bisection, takes first and second derivatives with Sobel
//! operators, shades with Blinn-Phong (gradient) and an opacity from the second derivative's
//! magnitude, and composites front to back. Rays hit surfaces after different numbers of samples:
//! in a vanilla kernel the whole warp steps through the shading whenever one lane needs it.

#include <cstdint>

#include "microsched/config.hpp"
#include "microsched/switching/managed_program.hpp"
#include "raycast/hydrogen.cuh"

namespace microsched::kernels::raycast {

//! Everything one ray carries from step to step (the task context). The ray's origin is the
//! camera's eye, the same for every ray, so it lives in the scene, not here (52 bytes). Sample n
//! lies at t_enter + n * step (n = 1 .. n_end; an index, not a running sum, so that samples can
//! be skipped without changing where the others lie).
struct ray_state {
  vec3 dir{};
  float t_enter = 0;
  int n = 0;         //!< the current sample
  int n_end = 1;     //!< the last sample (the first at or beyond the domain's exit)
  float f_prev = 0;  //!< psi at the previous sample (or, after a skip, at the last one taken)
  float f_next = 0;  //!< psi at the current sample
  vec3 colour{};     //!< accumulated, premultiplied
  float alpha = 0;
  int level = -1;  //!< the isosurface crossed by the last march
};
static_assert(sizeof(ray_state) == 52, "the ray's context: keep it small, it is swapped whole");

struct scene {
  camera cam;
  float step_size = 0.05f;  //!< distance between samples along a ray
  float opaque = 0.98f;     //!< early ray termination
  //! Samples one visit of the step marches at most (it stops at the first crossing): the
  //! per-visit cost of a scheduler is paid once per window. Every ray takes the same samples
  //! whatever the window, so the image does not depend on it.
  int march_window = 1;
  //! Empty-space skipping: after a sample, skip the samples that provably cross no isosurface
  //! (a Lipschitz bound of psi on the way to them). The image is the same as without it.
  bool skip_empty = false;
  //! Task order: 0 = row-major (task t is pixel t); otherwise tiles of tile_w x tile_h pixels
  //! (both dividing the image), row-major inside a tile and tiles row-major, so that a warp's
  //! and a pool chunk's consecutive tasks are neighbouring pixels. The image is the same.
  int tile_w = 0;
  int tile_h = 0;
  //! Task order as a table in device memory (task t -> pixel pixel_order[t], a permutation);
  //! overrides the tiles when set. The image is the same.
  const std::uint32_t* pixel_order = nullptr;
  //! The expensive-tiles-first table (task order 3 of raycast_program), when the host built one.
  const std::uint32_t* expensive_first = nullptr;
};

//! The pixel (row-major index) of task t under the scene's task order.
MICROSCHED_HD std::uint32_t task_pixel(const scene& s, task_id t) {
  const auto task = static_cast<std::uint32_t>(t);
  if (s.pixel_order != nullptr) return s.pixel_order[task];
  if (s.tile_w <= 0) return task;
  const auto tw = static_cast<std::uint32_t>(s.tile_w);
  const auto per_tile = tw * static_cast<std::uint32_t>(s.tile_h);
  const std::uint32_t tile = task / per_tile;
  const std::uint32_t within = task - tile * per_tile;
  const std::uint32_t tiles_x = static_cast<std::uint32_t>(s.cam.width) / tw;
  const std::uint32_t ty = tile / tiles_x;
  const std::uint32_t px = (tile - ty * tiles_x) * tw + within % tw;
  const std::uint32_t py = ty * static_cast<std::uint32_t>(s.tile_h) + within / tw;
  return py * static_cast<std::uint32_t>(s.cam.width) + px;
}

//! Where sample n of ray r lies.
MICROSCHED_HD float sample_t(const ray_state& r, int n, float step_size) {
  return r.t_enter + static_cast<float>(n) * step_size;
}

__device__ __forceinline__ ray_state start_ray(const scene& s, int px, int py) {
  const float u = ((px + 0.5f) / s.cam.width * 2.0f - 1.0f) * s.cam.tan_half_fov;
  const float v = (1.0f - (py + 0.5f) / s.cam.height * 2.0f) * s.cam.tan_half_fov;
  ray_state r;
  r.dir = normalize(s.cam.forward + u * s.cam.right + v * s.cam.up);
  float t0 = 0;
  float t1 = 0;
  clip_to_domain(s.cam.eye, r.dir, t0, t1);
  r.t_enter = t0;
  // The first sample at or beyond the exit ends the ray (a miss takes one sample).
  const float span = t1 > t0 ? t1 - t0 : 0.0f;
  const int n_end = static_cast<int>(ceilf(span / s.step_size));
  r.n_end = n_end > 1 ? n_end : 1;
  r.f_prev = psi321(s.cam.eye + t0 * r.dir);
  r.f_next = r.f_prev;
  return r;
}

//! Takes the sample f = psi at sample r.n (already advanced): true when an isosurface lies between
//! it and the previous one (the first along the ray is recorded in r.level).
__device__ __forceinline__ bool classify(ray_state& r, float f) {
  int level = -1;
  if (f > r.f_prev) {
#pragma unroll
    for (int i = isosurfaces - 1; i >= 0; --i) {
      if (isovalue(i) > r.f_prev && isovalue(i) <= f) level = i;
    }
  } else {
#pragma unroll
    for (int i = 0; i < isosurfaces; ++i) {
      if (isovalue(i) < r.f_prev && isovalue(i) >= f) level = i;
    }
  }
  r.f_next = f;
  r.level = level;
  if (level < 0) r.f_prev = f;
  return level >= 0;
}

//! One sample along the ray; true when an isosurface lies between it and the previous one.
__device__ __forceinline__ bool march(ray_state& r, const scene& s) {
  ++r.n;
  return classify(r, psi321(s.cam.eye + sample_t(r, r.n, s.step_size) * r.dir));
}

//! Samples after the one at p (value f, |p| = radius) that cannot cross an isosurface: psi
//! stays within the gap g between f and the nearest isovalue over a distance D as long as
//! D * L < g, L a bound of |grad psi| there. For psi = x z exp(-r/3),
//! |grad psi| <= (r + r^2/6) exp(-r/3), which peaks at r = sqrt(18) and falls beyond; over a
//! reach of at most 1 the radius stays above radius - 1. A factor 1.25 covers rounding and the
//! fast exponential; one sample less than the bound allows is skipped.
__device__ __forceinline__ int empty_samples(float f, float radius, float step_size) {
  float gap = fabsf(f - isovalue(0));
#pragma unroll
  for (int i = 1; i < isosurfaces; ++i) gap = fminf(gap, fabsf(f - isovalue(i)));
  constexpr float reach = 1.0f;
  const float rb = fmaxf(radius - reach, 4.2426407f);  // sqrt(18): the bound's maximum
  const float bound = 1.25f * (rb + rb * rb * (1.0f / 6.0f)) * __expf(rb * (-1.0f / 3.0f));
  const float d = fminf(gap / bound, reach);
  const int k = static_cast<int>(d / step_size) - 1;
  return k > 0 ? k : 0;
}

//! Up to s.march_window samples: stops at the first crossing (true) or at the ray's last
//! sample. The samples are exactly those of march() called once per step, so a vanilla loop of
//! march() and this render the same image. Without skipping, two samples are evaluated at a
//! time (independent exp/sqrt chains, twice the instruction-level parallelism); the second is
//! discarded when the first crosses or ends the ray. With skipping, a window counts the samples
//! evaluated, not those skipped.
__device__ __forceinline__ bool march_window(ray_state& r, const scene& s) {
  int left = s.march_window;
  if (s.skip_empty) {
#pragma unroll 1
    for (; left > 0; --left) {
      ++r.n;
      const vec3 p = s.cam.eye + sample_t(r, r.n, s.step_size) * r.dir;
      const float radius = sqrtf(dot(p, p));
      if (classify(r, psi321(p))) return true;
      const int skip = empty_samples(r.f_next, radius, s.step_size);
      r.n = r.n_end - r.n > skip ? r.n + skip : r.n_end;  // skipped samples cannot cross
      if (r.n >= r.n_end) return false;
    }
    return false;
  }
#pragma unroll 1
  while (left >= 2) {
    const float f1 = psi321(s.cam.eye + sample_t(r, r.n + 1, s.step_size) * r.dir);
    const float f2 = psi321(s.cam.eye + sample_t(r, r.n + 2, s.step_size) * r.dir);
    ++r.n;
    if (classify(r, f1)) return true;
    if (r.n >= r.n_end) return false;
    ++r.n;
    if (classify(r, f2)) return true;
    if (r.n >= r.n_end) return false;
    left -= 2;
  }
  if (left == 1) return march(r, s);
  return false;
}

//! Sobel weights at offset d (-1..1): smoothing [1 2 1] and derivative [-1 0 1]; and their
//! compositions at offset d (-2..2), which the Sobel operator applied twice produces:
//! smoothing twice [1 4 6 4 1], derivative then smoothing [-1 -2 0 2 1], derivative twice
//! [1 0 -2 0 1]. Select chains (constants once unrolled).
MICROSCHED_HD float sobel_s(int d) {
  return d == 0 ? 2.0f : (d == 1 || d == -1 ? 1.0f : 0.0f);
}
MICROSCHED_HD float sobel_d(int d) {
  return d == 1 ? 1.0f : (d == -1 ? -1.0f : 0.0f);
}
MICROSCHED_HD float sobel_ss(int d) {
  return d == 0 ? 6.0f : (d == 1 || d == -1 ? 4.0f : 1.0f);
}
MICROSCHED_HD float sobel_ds(int d) {
  return d == 2 ? 1.0f : (d == 1 ? 2.0f : (d == -1 ? -2.0f : (d == -2 ? -1.0f : 0.0f)));
}
MICROSCHED_HD float sobel_dd(int d) {
  return d == 0 ? -2.0f : (d == 1 || d == -1 ? 0.0f : 1.0f);
}

//! Bisection between the previous and the current sample: the hit point.
__device__ __forceinline__ vec3 refine_hit(const ray_state& r, vec3 eye, float step_size) {
  const float iso = isovalue(r.level);
  float lo = sample_t(r, r.n - 1, step_size);
  float hi = sample_t(r, r.n, step_size);
  const bool below = r.f_prev < iso;
  for (int i = 0; i < 12; ++i) {
    const float mid = 0.5f * (lo + hi);
    if ((psi321(eye + mid * r.dir) < iso) == below) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return eye + (0.5f * (lo + hi)) * r.dir;
}

//! Blinn-Phong with the gradient, front-to-back compositing with an opacity that grows with the
//! second derivative's magnitude (curved, thin features stand out; translucent layers, so most
//! rays pass several surfaces).
__device__ __forceinline__ ray_state composite(ray_state r, vec3 g, float magnitude, float knee) {
  vec3 n = normalize(g);
  if (dot(n, r.dir) > 0.0f) n = -1.0f * n;
  const vec3 light = normalize(vec3{-0.4f, 0.8f, 0.45f});
  const vec3 half = normalize(light - r.dir);
  const float diffuse = fmaxf(dot(n, light), 0.0f);
  const float specular = __powf(fmaxf(dot(n, half), 0.0f), 40.0f);
  const vec3 colour = (0.3f + 0.9f * diffuse) * isocolour(r.level) +
                      vec3{0.5f * specular, 0.5f * specular, 0.5f * specular};
  const float opacity = 0.08f + 0.42f * (magnitude / (magnitude + knee));
  const float w = (1.0f - r.alpha) * opacity;
  r.colour = r.colour + w * colour;
  r.alpha += w;
  r.f_prev = r.f_next;
  return r;
}

inline constexpr float sobel_spacing = 0.08f;  //!< h, the stencils' sample spacing

//! The expensive path, as frey2012 §5.3 describes it: bisection (12 samples), the gradient by
//! the 3x3x3 Sobel operator, the Hessian by the Sobel operator applied to that gradient (5x5x5,
//! 125 samples, the gradient's 27 among them), Blinn-Phong, compositing with an opacity from the
//! Hessian's (Frobenius) magnitude. Kept out of line (by value in, by value out, so the ray stays
//! in registers): a kernel that inlines it at several sites grows past the instruction cache.
//! static: every translation unit that includes this keeps its own.
static __device__ __noinline__ ray_state shade_hit_hessian(ray_state r, vec3 eye, float step_size) {
  const vec3 p = refine_hit(r, eye, step_size);
  constexpr float h = sobel_spacing;
  vec3 g{0, 0, 0};
  float hxx = 0, hyy = 0, hzz = 0, hxy = 0, hxz = 0, hyz = 0;
  // Separable weights: per x-plane i, sums over (j, k) with the y and z weights, then the x
  // weight once. The plane loop stays rolled (25 unrolled samples per plane).
#pragma unroll 1
  for (int i = -2; i <= 2; ++i) {
    float a_ss = 0, a_dd = 0, a_sd = 0, a_ds = 0, a_sds = 0, a_dsds = 0;  // Hessian, (j, k)
    float b_ss = 0, b_ds = 0, b_sd = 0;                                   // gradient, |j|,|k| <= 1
    const float x = p.x + static_cast<float>(i) * h;
#pragma unroll
    for (int j = -2; j <= 2; ++j) {
#pragma unroll
      for (int k = -2; k <= 2; ++k) {
        const float v = psi321(vec3{x, p.y + j * h, p.z + k * h});
        a_ss += sobel_ss(j) * sobel_ss(k) * v;    // for d2/dx2
        a_dd += sobel_dd(j) * sobel_ss(k) * v;    // d2/dy2
        a_sd += sobel_ss(j) * sobel_dd(k) * v;    // d2/dz2
        a_ds += sobel_ds(j) * sobel_ss(k) * v;    // d2/dxdy
        a_sds += sobel_ss(j) * sobel_ds(k) * v;   // d2/dxdz
        a_dsds += sobel_ds(j) * sobel_ds(k) * v;  // d2/dydz
        b_ss += sobel_s(j) * sobel_s(k) * v;
        b_ds += sobel_d(j) * sobel_s(k) * v;
        b_sd += sobel_s(j) * sobel_d(k) * v;
      }
    }
    hxx += sobel_dd(i) * a_ss;
    hyy += sobel_ss(i) * a_dd;
    hzz += sobel_ss(i) * a_sd;
    hxy += sobel_ds(i) * a_ds;
    hxz += sobel_ds(i) * a_sds;
    hyz += sobel_ss(i) * a_dsds;
    g = g + vec3{sobel_d(i) * b_ss, sobel_s(i) * b_ds, sobel_s(i) * b_sd};
  }
  g = (1.0f / (32.0f * h)) * g;
  // Sobel twice: (1 / (32 h))^2.
  const float hessian_norm =
      (1.0f / (1024.0f * h * h)) *
      sqrtf(hxx * hxx + hyy * hyy + hzz * hzz + 2.0f * (hxy * hxy + hxz * hxz + hyz * hyz));
  return composite(r, g, hessian_norm, 1.0f);
}

//! Refine, differentiate, shade and composite the crossing recorded by march().
__device__ __forceinline__ void shade(ray_state& r, const scene& s) {
  r = shade_hit_hessian(r, s.cam.eye, s.step_size);
}

[[nodiscard]] __device__ __forceinline__ bool ray_done(const ray_state& r, const scene& s) {
  return r.alpha >= s.opaque || r.n >= r.n_end;
}

__device__ __forceinline__ std::uint32_t final_colour(const ray_state& r) {
  const vec3 background{0.05f, 0.06f, 0.09f};
  return pack_rgba(r.colour + (1.0f - r.alpha) * background, 1.0f);
}

//! The port: the loop body of the vanilla ray caster as a managed-branch program.
struct raycast_program {
  // example-begin raycast-program
  static constexpr int managed_branches = 1;
  using context = ray_state;

  scene view;
  std::uint32_t* image = nullptr;  //!< RGBA8 per pixel

  __device__ context begin(task_id t) const {
    const std::uint32_t pixel = task_pixel(view, t);  // row-major, tiles, or a table
    const auto width = static_cast<std::uint32_t>(view.cam.width);
    return start_ray(view, static_cast<int>(pixel % width), static_cast<int>(pixel / width));
  }

  template <class Gate>
  __device__ bool step(context& ray, Gate& gate) const {
    // Up to view.march_window samples on the active lanes, stopping at the first crossing.
    const bool crossed = gate.active() && march_window(ray, view);
    if (gate.take(switching::branch<0>, crossed)) shade(ray, view);
    return gate.active() && ray_done(ray, view);
  }

  __device__ void end(task_id t, const context& ray) const {
    image[task_pixel(view, t)] = final_colour(ray);
  }
  // example-end raycast-program

  // The knobs of the automatic switching schedule (switching/branch_forms.hpp): neither the
  // window nor the order changes the image.
  [[nodiscard]] raycast_program with_march_window(int window) const {
    raycast_program p = *this;
    p.view.march_window = window;
    return p;
  }
  //! 0 rows, 1 8x4 tiles, 2 16x16 tiles, 3 expensive 8x4 tiles first (the host's table).
  [[nodiscard]] static constexpr int task_orders() { return 4; }
  [[nodiscard]] static const char* task_order_name(int k) {
    constexpr const char* names[] = {"rows", "8x4", "16x16", "expensive_first"};
    return k >= 0 && k < 4 ? names[k] : "?";
  }
  [[nodiscard]] bool has_task_order(int k) const {
    const int w = view.cam.width;
    const int h = view.cam.height;
    switch (k) {
      case 0:
        return true;
      case 1:
        return w % 8 == 0 && h % 4 == 0;
      case 2:
        return w % 16 == 0 && h % 16 == 0;
      case 3:
        return view.expensive_first != nullptr;
      default:
        return false;
    }
  }
  [[nodiscard]] raycast_program with_task_order(int k) const {
    raycast_program p = *this;
    constexpr int tiles[][2] = {{0, 0}, {8, 4}, {16, 16}, {0, 0}};
    p.view.tile_w = k >= 0 && k < 3 ? tiles[k][0] : 0;
    p.view.tile_h = k >= 0 && k < 3 ? tiles[k][1] : 0;
    p.view.pixel_order = k == 3 ? view.expensive_first : nullptr;
    return p;
  }
};

}  // namespace microsched::kernels::raycast
