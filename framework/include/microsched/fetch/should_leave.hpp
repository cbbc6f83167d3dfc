// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file should_leave.hpp
//! The fetch decision (frey2012 §4.3) the driver takes at every check, as a pure function that
//! host tests call too. Device-side: no host headers.

#include "microsched/config.hpp"

namespace microsched {

//! The fetch decision at a check, as a pure function of the idle count. While the pools still
//! hold tasks the threshold applies; once they are drained a refill cannot help, so the warp
//! stays in the compute loop until every lane is idle.
[[nodiscard]] MICROSCHED_HD bool should_leave(int idle_lanes, int threshold, bool pools_drained) {
  return idle_lanes >= (pools_drained ? warp_size : threshold);
}

}  // namespace microsched
