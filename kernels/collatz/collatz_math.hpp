// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file collatz_math.hpp
//! The Collatz map in plain C++, shared by the task program and the host tools and tests.

#include <cstdint>

#include "microsched/config.hpp"

namespace microsched::kernels {

//! Starts up to this value keep every orbit below 2^64: 12327829503 is the first start whose
//! orbit passes 2^64 (path records, OEIS A006884/A006885: its maximum is 2.07e20, while the
//! previous record, 8528817511, peaks at 1.81e19 < 2^64 = 1.84e19).
inline constexpr std::uint64_t collatz_last_safe_start = 12327829502ull;

//! One step of the map: n / 2 for even n, 3n + 1 for odd n.
MICROSCHED_HD std::uint64_t collatz_next(std::uint64_t n) {
  return (n & 1u) != 0 ? 3 * n + 1 : n >> 1;
}

//! Total stopping time of n >= 2: the steps until the orbit reaches 1 (111 for 27).
MICROSCHED_HD std::uint32_t collatz_total_steps(std::uint64_t n) {
  std::uint32_t steps = 0;
  do {
    n = collatz_next(n);
    ++steps;
  } while (n != 1);
  return steps;
}

}  // namespace microsched::kernels
