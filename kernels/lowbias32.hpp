// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file lowbias32.hpp
//! A 32-bit integer finaliser (Chris Wellons' lowbias32), for the device and the host: the
//! workloads mix task ids and seeds with it, so that neighbouring tasks draw independently.

#include <cstdint>

#include "microsched/config.hpp"

namespace microsched::kernels {

MICROSCHED_HD std::uint32_t lowbias32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

}  // namespace microsched::kernels
