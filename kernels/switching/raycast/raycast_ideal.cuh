// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file raycast_ideal.cuh
//! The ray caster's ideal: the work a run does, counted, priced at full SIMD efficiency. A
//! counting kernel (vanilla, one sample per iteration, the same samples and shading as every
//! schedule) sums the samples of psi taken and the crossings shaded; kernels in which every
//! thread takes the same number of samples, or shades the same number of crossings, with no
//! branch that depends on the ray, time one sample and one shade. No scheduler can do the
//! counted work faster than these rates allow (short of making a sample or a shade cheaper).

#include <cuda_runtime.h>

#include <cstdint>

#include "raycast/ray_work.hpp"
#include "raycast/raycast_program.cuh"

namespace microsched::switching_workloads::detail {

//! Totals of one counted run.
struct raycast_work_totals {
  unsigned long long rays;
  unsigned long long samples;  //!< samples of psi taken (with skipping: those not skipped)
  unsigned long long shades;   //!< crossings shaded
};

//! Renders `view` into `image` (row-major) one sample per iteration, counting the work; waits
//! for the result. The image equals the vanilla kernel's at any window. With `per_ray`, each
//! ray's work goes to per_ray[pixel] too (ray_work_word).
[[nodiscard]] raycast_work_totals count_raycast_work(const kernels::raycast::scene& view,
                                                     std::uint32_t* image, cudaStream_t stream,
                                                     std::uint32_t* per_ray = nullptr);

//! Renders the ray of `pixel` alone, in one thread, as the counting kernel does, into
//! sink[pixel]: no schedule that runs each ray in one thread ends before the longest such run.
void run_one_ray(const kernels::raycast::scene& view, std::uint32_t pixel, std::uint32_t* sink,
                 cudaStream_t stream);

//! Every thread (one per pixel) begins its ray, takes `samples` samples (the march's code, with
//! skipping when the scene skips, without stopping at crossings or at the ray's end), then
//! shades `shades` crossings, and writes a word of the result to `sink[pixel]`.
//! `samples` is even (the march without skipping takes samples in pairs).
void run_uniform_raycast_work(const kernels::raycast::scene& view, int samples, int shades,
                              std::uint32_t* sink, cudaStream_t stream);

}  // namespace microsched::switching_workloads::detail
