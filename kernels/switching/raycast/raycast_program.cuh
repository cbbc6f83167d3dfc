#pragma once
//! @file raycast_program.cuh
//! Multi-layer isosurface ray casting of psi(3,2,1) (frey2012 §5.3) as a managed-branch program.
//! A step marches one sample; when the ray crosses one of the eight isosurfaces, the managed
//! branch refines the hit by bisection, takes first and second derivatives with Sobel operators,
//! shades with Blinn-Phong (gradient) and an opacity from the second derivative's magnitude, and
//! composites front to back. Rays hit surfaces after different numbers of samples: in a vanilla
//! kernel the whole warp steps through the shading whenever one lane needs it.

#include <cstdint>

#include "microsched/config.hpp"
#include "microsched/switching/managed_program.hpp"
#include "raycast/hydrogen.cuh"

namespace microsched::kernels::raycast {

//! Everything one ray carries from step to step (the task context).
struct ray_state {
  vec3 origin{}, dir{};
  float t = 0, t_exit = 0;
  float f_prev = 0;  //!< psi at the previous sample
  float f_next = 0;  //!< psi at the current sample
  vec3 colour{};     //!< accumulated, premultiplied
  float alpha = 0;
  int level = -1;    //!< the isosurface crossed by the last march
};

struct scene {
  camera cam;
  float step_size = 0.05f;  //!< distance between samples along a ray
  float opaque = 0.98f;     //!< early ray termination
};

__device__ __forceinline__ ray_state start_ray(const scene& s, int px, int py) {
  const float u = ((px + 0.5f) / s.cam.width * 2.0f - 1.0f) * s.cam.tan_half_fov;
  const float v = (1.0f - (py + 0.5f) / s.cam.height * 2.0f) * s.cam.tan_half_fov;
  ray_state r;
  r.origin = s.cam.eye;
  r.dir = normalize(s.cam.forward + u * s.cam.right + v * s.cam.up);
  float t0 = 0;
  float t1 = 0;
  clip_to_domain(r.origin, r.dir, t0, t1);
  r.t = t0;
  r.t_exit = t1 > t0 ? t1 : t0;
  r.f_prev = psi321(r.origin + r.t * r.dir);
  r.f_next = r.f_prev;
  return r;
}

//! One sample along the ray; true when an isosurface lies between it and the previous one (the
//! first along the ray is recorded in r.level).
__device__ __forceinline__ bool march(ray_state& r, const scene& s) {
  r.t += s.step_size;
  const float f = psi321(r.origin + r.t * r.dir);
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

//! The expensive path: bisection, Sobel derivatives (27 samples), Blinn-Phong, compositing.
//! Kept out of line (by value in, by value out, so the ray stays in registers): a kernel that
//! inlines it at several sites, or unrolls a loop around it, grows past the instruction cache.
__device__ __noinline__ ray_state shade_hit(ray_state r, float step_size) {
  const float iso = isovalue(r.level);
  float lo = r.t - step_size;
  float hi = r.t;
  const bool below = r.f_prev < iso;
  for (int i = 0; i < 12; ++i) {
    const float mid = 0.5f * (lo + hi);
    if ((psi321(r.origin + mid * r.dir) < iso) == below) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const vec3 p = r.origin + (0.5f * (lo + hi)) * r.dir;

  constexpr float h = 0.08f;
  vec3 g{0, 0, 0};
  vec3 d2{0, 0, 0};
#pragma unroll
  for (int i = -1; i <= 1; ++i) {
#pragma unroll
    for (int j = -1; j <= 1; ++j) {
#pragma unroll
      for (int k = -1; k <= 1; ++k) {
        const float v = psi321(p + vec3{i * h, j * h, k * h});
        const float wi = i == 0 ? 2.0f : 1.0f;  // Sobel smoothing [1 2 1]
        const float wj = j == 0 ? 2.0f : 1.0f;
        const float wk = k == 0 ? 2.0f : 1.0f;
        const float si = i == 0 ? -2.0f : 1.0f;  // second difference [1 -2 1]
        const float sj = j == 0 ? -2.0f : 1.0f;
        const float sk = k == 0 ? -2.0f : 1.0f;
        g = g + v * vec3{i * wj * wk, j * wi * wk, k * wi * wj};
        d2 = d2 + v * vec3{si * wj * wk, sj * wi * wk, sk * wi * wj};
      }
    }
  }
  g = (1.0f / (32.0f * h)) * g;
  d2 = (1.0f / (16.0f * h * h)) * d2;
  const float curvature = fabsf(d2.x + d2.y + d2.z);

  vec3 n = normalize(g);
  if (dot(n, r.dir) > 0.0f) n = -1.0f * n;
  const vec3 light = normalize(vec3{-0.4f, 0.8f, 0.45f});
  const vec3 half = normalize(light - r.dir);
  const float diffuse = fmaxf(dot(n, light), 0.0f);
  const float specular = __powf(fmaxf(dot(n, half), 0.0f), 40.0f);
  const vec3 colour = (0.3f + 0.9f * diffuse) * isocolour(r.level) +
                      vec3{0.5f * specular, 0.5f * specular, 0.5f * specular};
  // Translucent layers: the opacity grows with the second derivative's magnitude (curved,
  // thin features stand out), so most rays pass several surfaces.
  const float opacity = 0.08f + 0.42f * (curvature / (curvature + 0.6f));

  const float w = (1.0f - r.alpha) * opacity;
  r.colour = r.colour + w * colour;
  r.alpha += w;
  r.f_prev = r.f_next;
  return r;
}

__device__ __forceinline__ void shade(ray_state& r, const scene& s) { r = shade_hit(r, s.step_size); }

[[nodiscard]] __device__ __forceinline__ bool ray_done(const ray_state& r, const scene& s) {
  return r.alpha >= s.opaque || r.t >= r.t_exit;
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
    const auto px = static_cast<int>(t % static_cast<task_id>(view.cam.width));
    const auto py = static_cast<int>(t / static_cast<task_id>(view.cam.width));
    return start_ray(view, px, py);
  }

  template <class Gate>
  __device__ bool step(context& ray, Gate& gate) const {
    bool crossed = false;
    if (gate.active()) crossed = march(ray, view);
    if (gate.take(switching::branch<0>, crossed)) shade(ray, view);
    return gate.active() && ray_done(ray, view);
  }

  __device__ void end(task_id t, const context& ray) const { image[t] = final_colour(ray); }
  // example-end raycast-program
};

}  // namespace microsched::kernels::raycast
