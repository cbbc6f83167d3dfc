// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// task_slice: every id of a range lies in exactly one slice of a partition, at every size.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "microsched/index/task_slice.hpp"

using microsched::task_id;
using microsched::task_slice;

namespace {
//! Visits of each id when the residues [cuts[i], cuts[i+1]) each run as a slice.
std::vector<int> visits(task_id total, int shift, std::uint32_t period,
                        const std::vector<std::uint32_t>& cuts) {
  std::vector<int> seen(total, 0);
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const task_slice s = task_slice::residues(total, shift, period, cuts[i], cuts[i + 1]);
    for (task_id local = 0; local < s.size(); ++local) {
      const task_id t = s(local);
      REQUIRE(t < total);
      ++seen[t];
    }
  }
  return seen;
}
}  // namespace

TEST_CASE("task_slice: a partition of residues covers every id exactly once") {
  for (const task_id total : {task_id{0}, task_id{1}, task_id{31}, task_id{33}, task_id{1000},
                              task_id{4096}, task_id{(1 << 14) + 7}}) {
    for (const int shift : {0, 3, 7}) {
      for (const std::vector<std::uint32_t>& cuts :
           {std::vector<std::uint32_t>{0, 1}, {0, 1, 2, 3, 8}, {0, 3, 5}, {0, 1, 2, 7}}) {
        const std::uint32_t period = cuts.back();
        CAPTURE(total);
        CAPTURE(shift);
        CAPTURE(period);
        const auto seen = visits(total, shift, period, cuts);
        for (task_id t = 0; t < total; ++t) REQUIRE(seen[t] == 1);
      }
    }
  }
}

TEST_CASE("task_slice: a residue samples the range evenly, in whole granules") {
  const task_slice s = task_slice::residues(64, 2, 4, 1, 2);  // granules 1, 5, 9, 13 of 4 ids
  REQUIRE(s.size() == 16);
  CHECK(s(0) == 4);
  CHECK(s(3) == 7);
  CHECK(s(4) == 20);
  CHECK(s(15) == 55);
}

TEST_CASE("task_slice: the contiguous form offsets ids") {
  const task_slice s = task_slice::range(task_id{1} << 33, 10);
  CHECK(s.size() == 10);
  CHECK(s(0) == task_id{1} << 33);
  CHECK(s(9) == (task_id{1} << 33) + 9);
}

TEST_CASE("task_slice: bad residues are refused, naming them") {
  CHECK_THROWS_WITH_AS((void)task_slice::residues(100, 2, 4, 2, 2),
                       "task_slice: residues [2, 2) of period 4 is empty or out of range",
                       std::invalid_argument);
  CHECK_THROWS_AS((void)task_slice::residues(100, 2, 4, 1, 5), std::invalid_argument);
  CHECK_THROWS_AS((void)task_slice::residues(100, 41, 4, 0, 1), std::invalid_argument);
}
