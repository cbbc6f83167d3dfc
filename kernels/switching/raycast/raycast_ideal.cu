// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ray caster's ideal (raycast_ideal.cuh): the counting kernel and the uniform-work kernels.
#include "microsched/device_buffer.hpp"
#include "microsched/error.hpp"
#include "raycast/raycast_ideal.cuh"

namespace microsched::switching_workloads::detail {

namespace {

namespace rk = kernels::raycast;

constexpr int ideal_block_threads = 128;

//! One sample, as march_window() takes it; with skipping, the samples after it that cannot
//! cross are skipped. Calling it until ray_done() visits the samples of any march window.
__device__ __forceinline__ bool counted_sample(rk::ray_state& r, const rk::scene& s) {
  if (!s.skip_empty) return rk::march(r, s);
  ++r.n;
  const rk::vec3 p = s.cam.eye + rk::sample_t(r, r.n, s.step_size) * r.dir;
  const float radius = sqrtf(rk::dot(p, p));
  if (rk::classify(r, rk::psi321(p))) return true;
  const int skip = rk::empty_samples(r.f_next, radius, s.step_size);
  r.n = r.n_end - r.n > skip ? r.n + skip : r.n_end;
  return false;
}

//! Sums a per-lane count over the block's warp (every lane of the warp calls it) into `total`.
__device__ __forceinline__ void add_warp(unsigned count, unsigned long long* total) {
  const unsigned sum = __reduce_add_sync(full_mask, count);
  if ((threadIdx.x & 31u) == 0 && sum != 0) atomicAdd(total, static_cast<unsigned long long>(sum));
}

__global__ void __launch_bounds__(ideal_block_threads)
    count_work_kernel(const rk::scene view, std::uint32_t* image, raycast_work_totals* totals,
                      std::uint32_t* per_ray) {
  const int px = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int py = static_cast<int>(blockIdx.y);
  unsigned samples = 0;
  unsigned shades = 0;
  const bool valid = px < view.cam.width;
  if (valid) {
    rk::ray_state ray = rk::start_ray(view, px, py);
    for (;;) {
      ++samples;
      if (counted_sample(ray, view)) {
        rk::shade(ray, view);
        ++shades;
      }
      if (rk::ray_done(ray, view)) break;
    }
    image[py * view.cam.width + px] = rk::final_colour(ray);
    if (per_ray != nullptr) per_ray[py * view.cam.width + px] = ray_work_word(samples, shades);
  }
  // Every lane of the warp reaches the sums: blocks are whole warps.
  add_warp(valid ? 1u : 0u, &totals->rays);
  add_warp(samples, &totals->samples);
  add_warp(shades, &totals->shades);
}

__global__ void __launch_bounds__(ideal_block_threads)
    uniform_work_kernel(const rk::scene view, int samples, int shades, std::uint32_t* sink) {
  const int px = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int py = static_cast<int>(blockIdx.y);
  if (px >= view.cam.width) return;
  rk::ray_state r = rk::start_ray(view, px, py);
  if (view.skip_empty) {
    // march_window()'s skipping loop without its exits: the skip still moves the next sample.
#pragma unroll 1
    for (int i = 0; i < samples; ++i) {
      ++r.n;
      const rk::vec3 p = view.cam.eye + rk::sample_t(r, r.n, view.step_size) * r.dir;
      const float radius = sqrtf(rk::dot(p, p));
      (void)rk::classify(r, rk::psi321(p));
      r.n += rk::empty_samples(r.f_next, radius, view.step_size);
    }
  } else {
    // march_window()'s pairs of independent samples without its exits.
#pragma unroll 1
    for (int i = 0; i < samples; i += 2) {
      const float f1 = rk::psi321(view.cam.eye + rk::sample_t(r, r.n + 1, view.step_size) * r.dir);
      const float f2 = rk::psi321(view.cam.eye + rk::sample_t(r, r.n + 2, view.step_size) * r.dir);
      ++r.n;
      (void)rk::classify(r, f1);
      ++r.n;
      (void)rk::classify(r, f2);
    }
  }
  if (shades > 0) {
    // A crossing inside the domain: the same bisection, stencils and compositing for every
    // thread (the shading has no branch that depends on the ray).
    r.n = r.n_end > 2 ? r.n_end / 2 : 1;
    r.f_prev = rk::psi321(view.cam.eye + rk::sample_t(r, r.n - 1, view.step_size) * r.dir);
    r.f_next = rk::psi321(view.cam.eye + rk::sample_t(r, r.n, view.step_size) * r.dir);
    r.level = (px + py) & (rk::isosurfaces - 1);
#pragma unroll 1
    for (int k = 0; k < shades; ++k) rk::shade(r, view);
  }
  sink[py * view.cam.width + px] =
      rk::final_colour(r) ^ static_cast<std::uint32_t>(r.n) ^ __float_as_uint(r.f_prev);
}

__global__ void one_ray_kernel(const rk::scene view, std::uint32_t pixel, std::uint32_t* sink) {
  const int px = static_cast<int>(pixel % static_cast<std::uint32_t>(view.cam.width));
  const int py = static_cast<int>(pixel / static_cast<std::uint32_t>(view.cam.width));
  rk::ray_state ray = rk::start_ray(view, px, py);
  for (;;) {
    if (counted_sample(ray, view)) rk::shade(ray, view);
    if (rk::ray_done(ray, view)) break;
  }
  sink[pixel] = rk::final_colour(ray);
}

dim3 pixel_grid(const rk::scene& view) {
  return dim3(
      static_cast<unsigned>((view.cam.width + ideal_block_threads - 1) / ideal_block_threads),
      static_cast<unsigned>(view.cam.height));
}

}  // namespace

raycast_work_totals count_raycast_work(const kernels::raycast::scene& view, std::uint32_t* image,
                                       cudaStream_t stream, std::uint32_t* per_ray) {
  device_buffer<raycast_work_totals> totals(1);
  totals.fill_bytes(0, stream);
  count_work_kernel<<<pixel_grid(view), ideal_block_threads, 0, stream>>>(view, image,
                                                                          totals.data(), per_ray);
  MICROSCHED_CHECK_LAUNCH("count_work_kernel");
  return totals.to_host(stream).front();  // waits for the stream
}

void run_one_ray(const kernels::raycast::scene& view, std::uint32_t pixel, std::uint32_t* sink,
                 cudaStream_t stream) {
  const auto pixels = static_cast<std::uint64_t>(view.cam.width) * view.cam.height;
  if (pixel >= pixels) throw_invalid("pixel", pixel, "must be below the image's pixel count");
  one_ray_kernel<<<1, 1, 0, stream>>>(view, pixel, sink);
  MICROSCHED_CHECK_LAUNCH("one_ray_kernel");
}

void run_uniform_raycast_work(const kernels::raycast::scene& view, int samples, int shades,
                              std::uint32_t* sink, cudaStream_t stream) {
  if (samples < 0 || samples % 2 != 0) {
    throw_invalid("uniform samples", samples, "must be even and not negative");
  }
  if (shades < 0) throw_invalid("uniform shades", shades, "must not be negative");
  uniform_work_kernel<<<pixel_grid(view), ideal_block_threads, 0, stream>>>(view, samples, shades,
                                                                            sink);
  MICROSCHED_CHECK_LAUNCH("uniform_work_kernel");
}

}  // namespace microsched::switching_workloads::detail
