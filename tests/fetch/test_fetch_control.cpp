// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Fetch control (frey2012 §4.3): when a warp leaves its compute loop to refill, and the text form
// of the rule, on the host.
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "microsched/config.hpp"
#include "microsched/fetch/fetch_control.hpp"
#include "microsched/fetch/should_leave.hpp"

using namespace microsched;

TEST_CASE("should_leave: the threshold while the pools hold tasks, every lane once drained") {
  for (int threshold = 1; threshold <= warp_size; ++threshold) {
    CAPTURE(threshold);
    for (int idle = 0; idle <= warp_size; ++idle) {
      CAPTURE(idle);
      CHECK(should_leave(idle, threshold, false) == (idle >= threshold));
      CHECK(should_leave(idle, threshold, true) == (idle == warp_size));
    }
  }
  // Any leaves at the first idle lane, All only when the warp is idle.
  CHECK(should_leave(1, fetch_control::any().idle_threshold, false));
  CHECK_FALSE(should_leave(31, fetch_control::all().idle_threshold, false));
  CHECK(should_leave(32, fetch_control::all().idle_threshold, false));
}

TEST_CASE("fetch control: each kind's threshold, and the text form round-trips") {
  CHECK(fetch_control::any() == fetch_control{fetch_kind::any, 1});
  CHECK(fetch_control::all() == fetch_control{fetch_kind::all, warp_size});
  CHECK(fetch_control::ballot(8) == fetch_control{fetch_kind::ballot, 8});
  for (const fetch_control f : {fetch_control::any(), fetch_control::all(),
                                fetch_control::ballot(1), fetch_control::ballot(32)}) {
    CAPTURE(to_string(f));
    CHECK_NOTHROW(validate(f));
    CHECK(parse_fetch_control(to_string(f)) == f);
  }
  CHECK(to_string(fetch_control::ballot(8)) == "ballot:8");
  // The paper's shared-memory count is not offered: its text names the replacement.
  CHECK_THROWS_WITH_AS((void)parse_fetch_control("atomic:4"), doctest::Contains("use ballot:N"),
                       std::invalid_argument);
}

TEST_CASE("fetch control: bad thresholds and bad text are refused, named") {
  CHECK_THROWS_WITH_AS(validate(fetch_control::ballot(0)), doctest::Contains("idle threshold"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(validate(fetch_control::ballot(33)), doctest::Contains("33"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(validate(fetch_control{fetch_kind::any, 2}), doctest::Contains("Any"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(validate(fetch_control{fetch_kind::all, 31}), doctest::Contains("All"),
                       std::invalid_argument);
  for (const char* text : {"", "sometimes", "ballot", "ballot:", "ballot:0", "ballot:33",
                           "atomic:x", "any:1", "ballot:8x"}) {
    CAPTURE(text);
    CHECK_THROWS_AS((void)parse_fetch_control(text), std::invalid_argument);
  }
}

TEST_CASE("should_leave over a warp's deferrals: the threshold-th finished lane, or the last") {
  // Lane i's task needs steps[i] steps; the warp checks after each `deferral` steps.
  std::vector<int> steps(warp_size);
  for (int i = 0; i < warp_size; ++i) steps[i] = 1 + (i * 37) % 300;
  std::vector<int> sorted = steps;
  std::sort(sorted.begin(), sorted.end());
  for (const int deferral : {1, 8, 64}) {
    for (const int threshold : {1, 4, 16, 32}) {
      for (const bool drained : {false, true}) {
        CAPTURE(deferral);
        CAPTURE(threshold);
        CAPTURE(drained);
        int deferrals = 0;
        for (;;) {
          ++deferrals;
          int idle = 0;
          for (const int s : steps) idle += s <= deferrals * deferral ? 1 : 0;
          if (should_leave(idle, threshold, drained)) break;
        }
        // The warp leaves in the deferral in which its n-th shortest task ends (n = 32 once
        // drained).
        const int nth = sorted[(drained ? warp_size : threshold) - 1];
        CHECK(deferrals == (nth + deferral - 1) / deferral);
      }
    }
  }
}
