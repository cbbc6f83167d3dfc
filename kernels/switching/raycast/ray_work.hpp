// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file ray_work.hpp
//! One ray's work (samples of psi taken, crossings shaded) in a 32-bit word, and the heaviest
//! rays of an image by it: the rays the tail's bound renders alone
//! (raycast_runner::measure_ideal). Host and device; plain C++ outside nvcc, for host tests.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "microsched/config.hpp"

namespace microsched::switching_workloads::detail {

//! Samples in the low 24 bits, shades in the high 8, each saturating.
[[nodiscard]] MICROSCHED_HD constexpr std::uint32_t ray_work_word(unsigned samples,
                                                                  unsigned shades) {
  return (samples < (1u << 24) ? samples : (1u << 24) - 1) | (shades < 255 ? shades : 255) << 24;
}
[[nodiscard]] MICROSCHED_HD constexpr unsigned ray_samples(std::uint32_t word) {
  return word & ((1u << 24) - 1);
}
[[nodiscard]] MICROSCHED_HD constexpr unsigned ray_shades(std::uint32_t word) {
  return word >> 24;
}

//! The pixels of the `each` rays with the most samples, then the `each` with the most shades,
//! then the `each` with the most work at `shade_weight` samples a shade, each pixel once: a
//! lone ray's time follows its work, but what a shade weighs against a sample in one thread is
//! not what it weighs on a full GPU, so all three lists are timed.
[[nodiscard]] std::vector<std::uint32_t> heaviest_rays(const std::vector<std::uint32_t>& per_ray,
                                                       double shade_weight, std::size_t each);

}  // namespace microsched::switching_workloads::detail
