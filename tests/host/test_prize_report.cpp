// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host tests of the prize report's arithmetic: the step statistics, the longest task it names and
// the bound it derives from the floor and the longest task alone, and how outputs compare.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
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

namespace {
template <class T>
std::vector<unsigned char> bytes_of(const std::vector<T>& values) {
  std::vector<unsigned char> b(values.size() * sizeof(T));
  std::memcpy(b.data(), values.data(), b.size());
  return b;
}
}  // namespace

TEST_CASE("prize outputs: bytes compare exactly, floats and doubles within a relative tolerance") {
  output_region bytes_region;
  const auto want = bytes_of<float>({1.0f, 100.0f, 0.0f, std::nanf("")});
  const auto got = bytes_of<float>({1.0f, 100.001f, 0.0f, std::nanf("")});
  CHECK(detail::differing_bytes(bytes_region, want, got) > 0);  // 100.001 differs in its bytes
  output_region floats;
  floats.values = output_region::compare_as::floats;
  floats.tolerance = 1e-4;
  CHECK(detail::differing_bytes(floats, want, got) == 0);
  floats.tolerance = 1e-6;
  CHECK(detail::differing_bytes(floats, want, got) == sizeof(float));  // one value outside
  const auto nan_vs_number = bytes_of<float>({1.0f, 100.0f, 0.0f, 3.0f});
  CHECK(detail::differing_bytes(floats, want, nan_vs_number) == sizeof(float));
  output_region doubles;
  doubles.values = output_region::compare_as::doubles;
  doubles.tolerance = 1e-12;
  CHECK(detail::differing_bytes(doubles, bytes_of<double>({1.0, -2.0}),
                                bytes_of<double>({1.0 + 1e-15, -2.0})) == 0);
  CHECK(detail::differing_bytes(doubles, bytes_of<double>({1.0, -2.0}),
                                bytes_of<double>({1.0, 2.0})) == sizeof(double));
}

TEST_CASE("prize outputs: infinities, signed zeros, tolerance 0 and sizes that differ") {
  const float inf = std::numeric_limits<float>::infinity();
  output_region floats;
  floats.values = output_region::compare_as::floats;
  floats.tolerance = 1e-4;
  CHECK(detail::differing_bytes(floats, bytes_of<float>({inf}), bytes_of<float>({1.0f})) == 4);
  CHECK(detail::differing_bytes(floats, bytes_of<float>({inf}), bytes_of<float>({-inf})) == 4);
  CHECK(detail::differing_bytes(floats, bytes_of<float>({1e30f}), bytes_of<float>({inf})) == 4);
  CHECK(detail::differing_bytes(floats, bytes_of<float>({inf}), bytes_of<float>({inf})) == 0);
  CHECK(detail::differing_bytes(floats, bytes_of<float>({-0.0f}), bytes_of<float>({0.0f})) == 0);
  output_region exact = floats;
  exact.tolerance = 0;  // as numbers, exactly
  CHECK(detail::differing_bytes(exact, bytes_of<float>({1.0f, -0.0f}),
                                bytes_of<float>({std::nextafter(1.0f, 2.0f), 0.0f})) == 4);
  // A copy shorter or longer than the reference: its missing or extra bytes differ, no more read.
  CHECK(detail::differing_bytes(floats, bytes_of<float>({1.0f, 2.0f}), bytes_of<float>({1.0f})) ==
        4);
  CHECK(detail::differing_bytes(floats, bytes_of<float>({1.0f}), bytes_of<float>({1.0f, 2.0f})) ==
        4);
  // A copy that ends inside a value: that value's bytes compare as bytes.
  auto short_copy = bytes_of<float>({1.0f, 2.0f});
  short_copy.resize(6);
  short_copy[4] ^= 1;
  CHECK(detail::differing_bytes(floats, bytes_of<float>({1.0f, 2.0f}), short_copy) == 2 + 1);
  output_region bytes_region;
  CHECK(detail::differing_bytes(bytes_region, bytes_of<float>({-0.0f}), bytes_of<float>({0.0f})) >
        0);
}

TEST_CASE("prize outputs: a bad region is refused with the value named") {
  int device_stand_in = 0;
  output_region r{&device_stand_in, 10, false};
  CHECK_NOTHROW(validate(r));
  r.values = output_region::compare_as::floats;
  CHECK_THROWS_WITH_AS(validate(r),
                       "output region bytes = 10: a region compared as values must hold a whole "
                       "number of them (4 bytes each)",
                       std::invalid_argument);
  r.bytes = 12;
  r.tolerance = -1;
  CHECK_THROWS_WITH_AS(validate(r),
                       "output region tolerance = -1.000000: must be finite and 0 or more",
                       std::invalid_argument);
  r.tolerance = std::nan("");
  CHECK_THROWS_AS(validate(r), std::invalid_argument);
  r.tolerance = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(validate(r), std::invalid_argument);
  r.values = output_region::compare_as::bytes;
  r.tolerance = 1e-4;  // a tolerance on bytes would be ignored: refused instead
  CHECK_THROWS_WITH_AS(validate(r),
                       "output region tolerance = 0.000100: applies to values: set values to "
                       "compare_as::floats or compare_as::doubles",
                       std::invalid_argument);
  r = output_region{};
  CHECK_THROWS_WITH_AS(validate(r), "output region bytes = 0: needs a device pointer and a size",
                       std::invalid_argument);
}
