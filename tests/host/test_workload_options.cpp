#include <doctest/doctest.h>

#include "julia/julia_workload.hpp"
#include "options.hpp"

using namespace microsched::workloads;

TEST_CASE("workload options: defaults, ranges and unknown names") {
  const std::vector<parameter> known = {{"width", "2048", ""}, {"kill", "0.01", ""}};
  CHECK(integer_option({}, known, "width", 1, 100000) == 2048);
  CHECK(integer_option({{"width", "17"}}, known, "width", 1, 100000) == 17);
  CHECK_THROWS_WITH_AS((void)integer_option({{"width", "0"}}, known, "width", 1, 100000),
                       "width = 0: expected an integer in 1..100000", std::invalid_argument);
  CHECK_THROWS_AS((void)integer_option({{"width", "-3"}}, known, "width", 1, 100000), std::invalid_argument);
  CHECK_THROWS_AS((void)integer_option({{"width", "12abc"}}, known, "width", 1, 100000), std::invalid_argument);
  CHECK(real_option({}, known, "kill", 0.0, 1.0) == doctest::Approx(0.01));
  CHECK_THROWS_AS((void)real_option({{"kill", "1.5"}}, known, "kill", 0.0, 1.0), std::invalid_argument);
  CHECK_THROWS_AS((void)real_option({{"kill", "nan"}}, known, "kill", 0.0, 1.0), std::invalid_argument);
  CHECK_THROWS_WITH_AS(reject_unknown("julia", {{"colour", "red"}}, known),
                       "julia: unknown option 'colour' (known: width, kill)", std::invalid_argument);
}

TEST_CASE("julia settings: the islands view by default, siegel on request, nothing else") {
  CHECK(parse_julia_settings({}).view == "islands");
  CHECK(parse_julia_settings({{"view", "siegel"}}).view == "siegel");
  CHECK_THROWS_WITH_AS((void)parse_julia_settings({{"view", "mandelbrot"}}),
                       "view = mandelbrot: expected islands or siegel", std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_julia_settings({{"offset", "2.5"}}),
                       doctest::Contains("offset = 2.5"), std::invalid_argument);
}
