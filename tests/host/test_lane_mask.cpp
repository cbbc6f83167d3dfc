// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <doctest/doctest.h>

#include <random>

#include "microsched/lane/lane_mask.hpp"

using namespace microsched;

TEST_CASE("rank_in_mask counts the set lanes below a lane") {
  CHECK(rank_in_mask(0u, 0) == 0);
  CHECK(rank_in_mask(full_mask, 0) == 0);
  CHECK(rank_in_mask(full_mask, 31) == 31);
  CHECK(rank_in_mask(0b1011u, 3) == 2);
  CHECK(rank_in_mask(0x80000000u, 31) == 0);
}

TEST_CASE("ranks of a mask's lanes are 0..popcount-1, each once, in lane order") {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 2000; ++trial) {
    const unsigned mask = rng();
    int expected = 0;
    for (unsigned lane = 0; lane < 32; ++lane) {
      if (mask & (1u << lane)) {
        CHECK(rank_in_mask(mask, lane) == expected);
        ++expected;
      }
    }
    CHECK(expected == popcount(mask));
    if (mask != 0) CHECK((mask >> leader_of(mask) & 1u) == 1u);
    if (mask != 0) CHECK(rank_in_mask(mask, leader_of(mask)) == 0);
  }
}
