// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file pathtrace_math.hpp
//! A small path tracer's state and one bounce, for the device and the host: a box open at the
//! front (five axis-aligned walls), a mirror ball, a glass ball, a diffuse ball and a spherical
//! light, seen from outside the opening as in smallpt. A path ends when it leaves through the
//! opening, reaches the light, loses Russian roulette (from the third bounce, survival from its
//! throughput) or reaches the maximum depth, so its length depends on where it goes: most
//! paths take a few bounces and some take dozens. Random numbers are a hash of (the path's
//! key, the bounce, the draw): a path's numbers never depend on the lane that traces it.

#include <cmath>
#include <cstdint>

#include "lowbias32.hpp"
#include "microsched/config.hpp"

namespace microsched::kernels {

struct pt_vec {
  float x = 0, y = 0, z = 0;
};

MICROSCHED_HD pt_vec operator+(pt_vec a, pt_vec b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
MICROSCHED_HD pt_vec operator-(pt_vec a, pt_vec b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
MICROSCHED_HD pt_vec operator*(pt_vec a, float s) {
  return {a.x * s, a.y * s, a.z * s};
}
MICROSCHED_HD pt_vec mul(pt_vec a, pt_vec b) {
  return {a.x * b.x, a.y * b.y, a.z * b.z};
}
MICROSCHED_HD float dot(pt_vec a, pt_vec b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
MICROSCHED_HD pt_vec cross(pt_vec a, pt_vec b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
MICROSCHED_HD pt_vec normalize(pt_vec a) {
  return a * (1.0f / sqrtf(dot(a, a)));
}
MICROSCHED_HD float max_component(pt_vec a) {
  return fmaxf(a.x, fmaxf(a.y, a.z));
}

//! The state of one path, as a wavefront path tracer keeps it between bounces (pbrt-v4's ray
//! work items): the ray, the throughput and the radiance so far, the previous hit for multiple
//! importance sampling, the first hit's albedo and normal for a denoiser, and the generator.
struct pt_path {
  pt_vec origin;
  pt_vec direction;
  pt_vec throughput;
  pt_vec radiance;
  pt_vec previous_normal;
  pt_vec first_albedo;
  pt_vec first_normal;
  float previous_pdf = 1;
  float eta_scale = 1;
  std::uint32_t key = 0;    //!< the path's random-number key
  std::uint32_t depth = 0;  //!< bounces so far
  std::uint32_t flags = 0;  //!< bit 0: the last bounce was specular
};

//! Draw `k` of bounce `depth` of the path keyed `key`, uniform in [0, 1).
MICROSCHED_HD float pt_uniform(std::uint32_t key, std::uint32_t depth, std::uint32_t k) {
  return static_cast<float>(lowbias32(key ^ lowbias32(depth * 8u + k + 0x9e3779b9u)) >> 8) *
         0x1p-24f;
}

MICROSCHED_HD std::uint32_t pt_key(std::uint64_t task, std::uint32_t seed) {
  return lowbias32(static_cast<std::uint32_t>(task) ^
                   lowbias32(static_cast<std::uint32_t>(task >> 32) ^ lowbias32(seed)));
}

enum class pt_material : std::uint32_t { diffuse, mirror, glass, light };

struct pt_hit {
  float t = 0;
  pt_vec normal;  //!< unit, outward
  pt_vec color;
  pt_material material = pt_material::diffuse;
  bool found = false;
};

//! A nearer hit of the wall at `pos` on axis `axis` (0: x, 1: y, 2: z) within the box, in h.
MICROSCHED_HD void pt_wall(pt_vec o, pt_vec d, int axis, float pos, pt_vec color, pt_hit& h) {
  const float oa = axis == 0 ? o.x : axis == 1 ? o.y : o.z;
  const float da = axis == 0 ? d.x : axis == 1 ? d.y : d.z;
  if (da == 0.0f) return;
  const float t = (pos - oa) / da;
  if (t <= 1e-3f || (h.found && t >= h.t)) return;
  if ((o + d * t).z > 170.0f) return;     // the plane beyond the opening
  const float s = da < 0 ? 1.0f : -1.0f;  // faces the ray
  h.found = true;
  h.t = t;
  h.normal = axis == 0 ? pt_vec{s, 0, 0} : axis == 1 ? pt_vec{0, s, 0} : pt_vec{0, 0, s};
  h.color = color;
  h.material = pt_material::diffuse;
}

//! A nearer hit of the ball at `centre` of radius `r`, in h.
MICROSCHED_HD void pt_ball(pt_vec o, pt_vec d, pt_vec centre, float r, pt_material material,
                           pt_vec color, pt_hit& h) {
  const pt_vec op = centre - o;
  const float b = dot(op, d);
  const float det = b * b - dot(op, op) + r * r;
  if (det < 0) return;
  const float root = sqrtf(det);
  const float t = b - root > 1e-2f ? b - root : b + root;
  if (t <= 1e-2f || (h.found && t >= h.t)) return;
  h.found = true;
  h.t = t;
  h.normal = normalize(o + d * t - centre);
  h.color = color;
  h.material = material;
}

//! The nearest hit of the scene: the walls x = 0 (red), x = 100 (blue), y = 0, y = 81.6 and
//! z = 0 (grey), open at z = 170; a mirror ball, a glass ball, a green ball and the light.
//! Written as calls with constant arguments, not loops over arrays, so that every kernel
//! keeps the scene in registers and immediates.
MICROSCHED_HD pt_hit pt_intersect(pt_vec o, pt_vec d) {
  const pt_vec grey{0.75f, 0.75f, 0.75f};
  const pt_vec white{0.999f, 0.999f, 0.999f};
  pt_hit h;
  pt_wall(o, d, 0, 0.0f, pt_vec{0.75f, 0.25f, 0.25f}, h);
  pt_wall(o, d, 0, 100.0f, pt_vec{0.25f, 0.25f, 0.75f}, h);
  pt_wall(o, d, 1, 0.0f, grey, h);
  pt_wall(o, d, 1, 81.6f, grey, h);
  pt_wall(o, d, 2, 0.0f, grey, h);
  pt_ball(o, d, pt_vec{27, 16.5f, 47}, 16.5f, pt_material::mirror, white, h);
  pt_ball(o, d, pt_vec{73, 16.5f, 78}, 16.5f, pt_material::glass, white, h);
  pt_ball(o, d, pt_vec{50, 10, 120}, 10.0f, pt_material::diffuse, pt_vec{0.25f, 0.75f, 0.25f}, h);
  pt_ball(o, d, pt_vec{50, 81.6f, 81.6f}, 8.0f, pt_material::light, white, h);
  return h;
}

//! The camera ray of sample `sample` of pixel (x, y) of a width x height image, jittered within
//! the pixel; it starts inside the box, as smallpt's.
MICROSCHED_HD pt_path pt_camera(std::uint32_t x, std::uint32_t y, std::uint32_t width,
                                std::uint32_t height, std::uint32_t key) {
  const pt_vec eye{50, 52, 295.6f};
  const pt_vec ahead = normalize(pt_vec{0, -0.042612f, -1});
  const pt_vec cx{static_cast<float>(width) * 0.5135f / static_cast<float>(height), 0, 0};
  const pt_vec cy = normalize(cross(cx, ahead)) * 0.5135f;
  const float fx = (static_cast<float>(x) + pt_uniform(key, 0xffffu, 0)) / width - 0.5f;
  const float fy = (static_cast<float>(y) + pt_uniform(key, 0xffffu, 1)) / height - 0.5f;
  const pt_vec d = normalize(cx * fx + cy * fy + ahead);
  pt_path p;
  p.origin = eye + d * 140.0f;
  p.direction = d;
  p.throughput = {1, 1, 1};
  p.key = key;
  return p;
}

//! A direction about `w` (unit) with the cosine-weighted density, from two uniform draws.
MICROSCHED_HD pt_vec pt_cosine_sample(pt_vec w, float u1, float u2) {
  const float phi = 6.28318531f * u1;
  const float r = sqrtf(u2);
  const pt_vec u = normalize(cross(fabsf(w.x) > 0.1f ? pt_vec{0, 1, 0} : pt_vec{1, 0, 0}, w));
  const pt_vec v = cross(w, u);
  return normalize(u * (cosf(phi) * r) + v * (sinf(phi) * r) + w * sqrtf(1.0f - u2));
}

//! Refraction through the glass ball (index 1.5) or reflection, chosen by Schlick's Fresnel
//! term and draw `u`: sets the path's new direction.
MICROSCHED_HD void pt_glass(pt_path& p, pt_vec n, float u) {
  const pt_vec d = p.direction;
  const bool entering = dot(n, d) < 0;
  const pt_vec nl = entering ? n : n * -1.0f;
  const float eta = entering ? 1.0f / 1.5f : 1.5f;
  const float cos_i = -dot(d, nl);
  const float cos2t = 1.0f - eta * eta * (1.0f - cos_i * cos_i);
  const pt_vec reflected = d + nl * (2.0f * cos_i);
  if (cos2t < 0) {  // total internal reflection
    p.direction = reflected;
    return;
  }
  const pt_vec refracted = normalize(d * eta + nl * (eta * cos_i - sqrtf(cos2t)));
  const float c = 1.0f - (entering ? cos_i : sqrtf(cos2t));
  const float r0 = 0.04f;
  const float fresnel = r0 + (1.0f - r0) * c * c * c * c * c;
  if (u < fresnel) {
    p.direction = reflected;
    return;
  }
  p.direction = refracted;
  p.eta_scale *= eta * eta;
}

//! One bounce of path `p`: true when the path ends (it left the box, reached the light, lost
//! Russian roulette or reached `max_depth` bounces).
MICROSCHED_HD bool pt_bounce(pt_path& p, std::uint32_t max_depth) {
  const pt_hit h = pt_intersect(p.origin, p.direction);
  ++p.depth;
  if (!h.found) {  // out through the opening: the sky
    p.radiance = p.radiance + mul(p.throughput, pt_vec{0.5f, 0.6f, 0.8f});
    return true;
  }
  if (h.material == pt_material::light) {
    p.radiance = p.radiance + p.throughput * 12.0f;
    return true;
  }
  const pt_vec hit = p.origin + p.direction * h.t;
  const bool outside = dot(h.normal, p.direction) < 0;
  const pt_vec nl = outside ? h.normal : h.normal * -1.0f;
  if (p.depth == 1) {
    p.first_albedo = h.color;
    p.first_normal = h.normal;
  }
  const float u1 = pt_uniform(p.key, p.depth, 0);
  const float u2 = pt_uniform(p.key, p.depth, 1);
  switch (h.material) {
    case pt_material::mirror:
      p.direction = p.direction - h.normal * (2.0f * dot(h.normal, p.direction));
      p.flags |= 1u;
      break;
    case pt_material::glass:
      pt_glass(p, h.normal, u1);
      p.flags |= 1u;
      break;
    default:
      p.direction = pt_cosine_sample(nl, u1, u2);
      p.previous_pdf = dot(nl, p.direction) * 0.318309886f;
      p.flags &= ~1u;
      break;
  }
  p.throughput = mul(p.throughput, h.color);
  p.previous_normal = nl;
  p.origin = hit + (dot(p.direction, nl) > 0 ? nl : nl * -1.0f) * 1e-2f;
  if (p.depth >= max_depth) return true;
  if (p.depth >= 3) {
    const float survive = fminf(fmaxf(max_component(p.throughput), 0.05f), 0.95f);
    if (pt_uniform(p.key, p.depth, 2) >= survive) return true;
    p.throughput = p.throughput * (1.0f / survive);
  }
  return false;
}

//! The radiance's luminance (Rec. 709 weights).
MICROSCHED_HD float pt_luminance(pt_vec c) {
  return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z;
}

}  // namespace microsched::kernels
