// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host tests of the prize report's arithmetic: the step statistics, the longest task it names and
// the bound it derives from the floor and the longest task alone.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "microsched/check/prize_report.hpp"

using namespace microsched;

TEST_CASE("prize report: step statistics and the first task with the most steps") {
  // Two warps: the first holds a 9 at task 5 and again at task 20, the second a single 4.
  std::vector<std::uint32_t> steps(33, 1);
  steps[5] = 9;
  steps[20] = 9;
  steps[32] = 4;
  prize_report r;
  detail::summarize_steps(steps, r);
  CHECK(r.steps_max == 9);
  CHECK(r.longest_task == 5);
  CHECK(r.steps_mean == doctest::Approx((30.0 + 9 + 9 + 4) / 33));
  CHECK(r.warp_max_mean == doctest::Approx((9.0 + 4) / 2));
  CHECK(r.floor_steps == 2);

  std::vector<std::uint32_t> last(40, 2);
  last[39] = 3;
  detail::summarize_steps(last, r);
  CHECK(r.longest_task == 39);
}

TEST_CASE("prize report: the bound is the floor or the longest task alone, whichever is longer") {
  prize_report r;
  r.floor.median_ms = 0.060;
  r.longest_alone.median_ms = 0.079;
  r.direct.median_ms = 0.250;
  r.scheduled.median_ms = 0.180;
  CHECK(r.bound_ms() == doctest::Approx(0.079));
  // The summary gives the share of the bound only where the floor is out of reach.
  CHECK(r.summary().find("longest task alone 0.079 ms (above the floor: no schedule beats it; "
                         "scheduled at 44% of its speed); exactly once") != std::string::npos);
  r.longest_alone.median_ms = 0.010;
  CHECK(r.bound_ms() == doctest::Approx(0.060));
  CHECK(r.summary().find("longest task alone 0.010 ms; exactly once: yes") != std::string::npos);
  CHECK(r.summary().find("of its speed") == std::string::npos);
}

TEST_CASE(
    "prize report: the summary keeps the scheduler's whole report and names differing bytes") {
  prize_report r;
  r.tasks = 1024;
  r.floor.median_ms = 0.05;
  r.direct.median_ms = 0.2;
  r.scheduled.median_ms = 0.1;
  // A report as long as one with every automatic candidate's time, its end marked.
  r.schedule = "automatic: chose budgeted " + std::string(1500, '.') + " END";
  CHECK(r.summary().find("outputs equal: yes") != std::string::npos);
  CHECK(r.summary().size() > r.schedule.size());
  CHECK(r.summary().find(" END") == r.summary().size() - 4);

  r.differing_bytes = 12;
  CHECK(r.summary().find(
            "outputs equal: NO (12 bytes differ; where the program updates a buffer in place") !=
        std::string::npos);
  r.missing = 3;  // a task never ended: the bytes differ for that reason, not for rounding
  CHECK(r.summary().find("outputs equal: NO (12 bytes differ);") != std::string::npos);
  CHECK(r.summary().find(" END") == r.summary().size() - 4);
}
