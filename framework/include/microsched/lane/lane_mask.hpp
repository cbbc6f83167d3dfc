// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file lane_mask.hpp
//! Lane arithmetic on 32-bit ballot masks, as pure functions (host-testable).

#include <bit>

#include "microsched/config.hpp"

namespace microsched {

//! Bits of the lanes below `lane` (lane in 0..31).
[[nodiscard]] MICROSCHED_HD unsigned lanes_below(unsigned lane) {
  return (1u << lane) - 1u;
}

//! Population count that compiles to POPC on the device.
[[nodiscard]] MICROSCHED_HD int popcount(unsigned mask) {
#if defined(__CUDA_ARCH__)
  return __popc(mask);
#else
  return std::popcount(mask);
#endif
}

//! Rank of `lane` among the set lanes of `mask`: how many set lanes come before it. This is the
//! offset a lane uses into a block of ids (or pool slots) handed to the whole mask at once.
[[nodiscard]] MICROSCHED_HD int rank_in_mask(unsigned mask, unsigned lane) {
  return popcount(mask & lanes_below(lane));
}

//! Lowest set lane of a non-empty mask: the leader that issues a warp-aggregated atomic.
[[nodiscard]] MICROSCHED_HD int leader_of(unsigned mask) {
#if defined(__CUDA_ARCH__)
  return __ffs(static_cast<int>(mask)) - 1;
#else
  return std::countr_zero(mask);
#endif
}

}  // namespace microsched
