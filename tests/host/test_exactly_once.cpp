// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The exactly-once tally (check/exactly_once.hpp): counters read back after a run.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "microsched/check/exactly_once.hpp"

using namespace microsched;

TEST_CASE("exactly once: every counter at 1 passes, with no detail") {
  const auto r = count_exactly_once(std::vector<std::uint32_t>(1000, 1u), 200);
  CHECK(r.tasks == 1000);
  CHECK(r.missing == 0);
  CHECK(r.duplicated == 0);
  CHECK(r.detail.empty());
  CHECK(r.passed());
  CHECK(count_exactly_once(std::vector<unsigned>{}).passed());  // no tasks, nothing wrong
}

TEST_CASE("exactly once: zeros are missing, counts above 1 duplicated, each named in order") {
  const std::vector<std::uint32_t> counts = {1, 0, 2, 1, 7, 0};
  const auto r = count_exactly_once(counts, 1000);
  CHECK(r.tasks == 6);
  CHECK(r.missing == 2);
  CHECK(r.duplicated == 2);
  CHECK_FALSE(r.passed());
  CHECK(r.detail ==
        "task 1 processed 0 times; task 2 processed 2 times; task 4 processed 7 times; "
        "task 5 processed 0 times; ");
  // Without a limit the counts stay exact and the detail empty.
  const auto quiet = count_exactly_once(counts);
  CHECK(quiet.missing == 2);
  CHECK(quiet.duplicated == 2);
  CHECK(quiet.detail.empty());
}

TEST_CASE("exactly once: the detail stops growing once past its limit, the counts do not") {
  std::vector<std::uint32_t> counts(10000, 1u);
  for (std::size_t t = 0; t < counts.size(); t += 10) counts[t] = 0;
  const auto r = count_exactly_once(counts, 200);
  CHECK(r.missing == 1000);
  CHECK(r.duplicated == 0);
  // Entries are appended while the detail is shorter than the limit: one entry past it at most.
  const std::string last = "task 9990 processed 0 times; ";
  CHECK(r.detail.size() >= 200);
  CHECK(r.detail.size() < 200 + last.size());
  CHECK(r.detail.rfind("task 0 processed 0 times; ", 0) == 0);
  CHECK(r.detail.find(last) == std::string::npos);
}
