// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file hydrogen.cuh
//! The scene of the ray caster (frey2012 §5.3): the hydrogen orbital psi(3,2,1), real part,
//! evaluated on the fly, psi ~ x z exp(-r/3) (up to a constant), eight isosurfaces of distinct
//! colours, a perspective camera. Plain functions shared by the vanilla and scheduled kernels.

#include <cstdint>

#include "microsched/config.hpp"

namespace microsched::kernels::raycast {

struct vec3 {
  float x, y, z;
};
MICROSCHED_HD vec3 operator+(vec3 a, vec3 b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
MICROSCHED_HD vec3 operator-(vec3 a, vec3 b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
MICROSCHED_HD vec3 operator*(float s, vec3 a) {
  return {s * a.x, s * a.y, s * a.z};
}
MICROSCHED_HD float dot(vec3 a, vec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
MICROSCHED_HD vec3 cross(vec3 a, vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
MICROSCHED_HD vec3 normalize(vec3 a) {
  const float s = 1.0f / sqrtf(dot(a, a));
  return s * a;
}

inline constexpr int isosurfaces = 8;
inline constexpr float domain_radius = 20.0f;  //!< the domain is the ball r <= 20 (Bohr radii)
//! Isovalues of psi (its maximum is about 2.44 at r = 6; |psi| = 0.25 reaches r = 20), sorted
//! ascending. Select chains, not
//! tables: a table indexed at run time would live in local memory.
MICROSCHED_HD float isovalue(int i) {
  const int j = i < 4 ? 3 - i : i - 4;  // distance from the middle
  float v = 0.25f;
  v = j == 1 ? 0.4f : v;
  v = j == 2 ? 0.9f : v;
  v = j == 3 ? 1.6f : v;
  return i < 4 ? -v : v;
}
MICROSCHED_HD vec3 isocolour(int i) {
  vec3 c{0.95f, 0.20f, 0.15f};
  c = i == 1 ? vec3{1.00f, 0.55f, 0.10f} : c;
  c = i == 2 ? vec3{0.95f, 0.90f, 0.20f} : c;
  c = i == 3 ? vec3{0.45f, 0.85f, 0.25f} : c;
  c = i == 4 ? vec3{0.20f, 0.80f, 0.80f} : c;
  c = i == 5 ? vec3{0.25f, 0.45f, 1.00f} : c;
  c = i == 6 ? vec3{0.60f, 0.30f, 0.95f} : c;
  c = i == 7 ? vec3{0.95f, 0.35f, 0.75f} : c;
  return c;
}

//! psi(3,2,1) (real part, unnormalised) at p.
MICROSCHED_HD float psi321(vec3 p) {
  const float r = sqrtf(dot(p, p));
  return p.x * p.z * expf(-r * (1.0f / 3.0f));
}

struct camera {
  int width = 512;
  int height = 512;
  vec3 eye{};
  vec3 forward{}, right{}, up{};
  float tan_half_fov = 0.34f;
};

inline camera make_camera(int width, int height) {
  camera cam;
  cam.width = width;
  cam.height = height;
  cam.eye = {38.0f, 30.0f, 44.0f};
  cam.forward = normalize(vec3{0, 0, 0} - cam.eye);
  cam.right = normalize(cross(cam.forward, vec3{0, 1, 0}));
  cam.up = cross(cam.right, cam.forward);
  return cam;
}

//! Entry and exit distances of a ray (unit direction) through the domain ball (t_exit <= t_enter:
//! a miss). The outermost isosurface lies inside it, so no sample outside can cross one.
MICROSCHED_HD void clip_to_domain(vec3 o, vec3 d, float& t_enter, float& t_exit) {
  const float b = dot(o, d);
  const float c = dot(o, o) - domain_radius * domain_radius;
  const float disc = b * b - c;
  if (disc <= 0.0f) {
    t_enter = t_exit = 0.0f;
    return;
  }
  const float root = sqrtf(disc);
  t_enter = -b - root > 0.0f ? -b - root : 0.0f;
  t_exit = -b + root;
}

MICROSCHED_HD std::uint32_t pack_rgba(vec3 c, float a) {
  const auto q = [](float v) {
    v = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    return static_cast<std::uint32_t>(v * 255.0f + 0.5f);
  };
  return q(c.x) | (q(c.y) << 8) | (q(c.z) << 16) | (q(a) << 24);
}

}  // namespace microsched::kernels::raycast
