// The adaptive control of zhang2011 §5.4, driven by scripted timings.
#include <doctest/doctest.h>

#include <stdexcept>

#include "microsched/pipeline/adaptive_control.hpp"

using namespace microsched::pipeline;
using phase = adaptive_controller::phase;

TEST_CASE("profiling estimates r' = r0 * Torg / (Ttr + Tsav)") {
  adaptive_controller c;
  CHECK(c.state() == phase::profiling);
  CHECK(c.ratio() == doctest::Approx(0.1));
  c.original_kernel(10.0);                 // Torg
  c.transformation(0.1, true, 2.0, 9.0);   // Ttr = 2, Topt = 9 -> Tsav = 1
  CHECK(c.state() == phase::adjusting);
  CHECK(c.ratio() == doctest::Approx(0.1 * 10.0 / (2.0 + 1.0)));
}

TEST_CASE("the estimate is clamped to 1") {
  adaptive_controller c;
  c.original_kernel(10.0);
  c.transformation(0.1, true, 0.1, 9.5);
  CHECK(c.ratio() == doctest::Approx(1.0));
}

TEST_CASE("a first transformation slower than the kernel shuts the control off") {
  adaptive_controller c;
  c.original_kernel(1.0);
  c.transformation(0.1, false, 5.0, 0);
  CHECK_FALSE(c.enabled());
  CHECK(c.reason().find("did not finish") != std::string::npos);
}

TEST_CASE("no saving (nothing to gain) shuts the control off") {
  adaptive_controller c;
  c.original_kernel(1.0);
  c.transformation(0.1, true, 0.2, 1.01);
  CHECK_FALSE(c.enabled());
  CHECK(c.reason().find("no gain") != std::string::npos);
}

TEST_CASE("r rises only after two consecutive successes, while it never fell") {
  adaptive_controller c;
  c.original_kernel(10.0);
  c.transformation(0.1, true, 2.0, 8.0);  // r' = 0.1*10/(2+2) = 0.25
  REQUIRE(c.ratio() == doctest::Approx(0.25));
  c.transformation(0.1, true, 1.0, 8.0);
  CHECK(c.ratio() == doctest::Approx(0.25));  // one success: the lagging one, no change
  c.transformation(0.25, true, 1.0, 8.0);
  CHECK(c.ratio() == doctest::Approx(0.35));  // second success: up a step
  c.transformation(0.35, true, 1.0, 8.0);
  c.transformation(0.35, true, 1.0, 8.0);
  CHECK(c.ratio() == doctest::Approx(0.45));
  c.transformation(0.45, false, 12.0, 0);  // failure: down a step, never up again
  CHECK(c.ratio() == doctest::Approx(0.35));
  CHECK(c.state() == phase::adjusting);
  c.transformation(0.35, true, 1.0, 8.0);
  c.transformation(0.35, true, 1.0, 8.0);  // two successes after a decrease: settled
  CHECK(c.state() == phase::settled);
  CHECK(c.ratio() == doctest::Approx(0.35));
  c.transformation(0.35, false, 12.0, 0);  // settled: r stays
  CHECK(c.ratio() == doctest::Approx(0.35));
}

TEST_CASE("failures at the smallest ratio raise s to 5, then shut down") {
  adaptive_arguments args;
  args.min_ratio = 0.1;
  adaptive_controller c(args);
  c.original_kernel(10.0);
  c.transformation(0.1, true, 9.0, 9.5);  // r' = 0.1*10/(9+0.5) ~ 0.105
  REQUIRE(c.state() == phase::adjusting);
  c.transformation(0.105, false, 11.0, 0);
  CHECK(c.ratio() == doctest::Approx(0.1));
  CHECK(c.segments() == 1);
  c.transformation(0.1, false, 11.0, 0);
  CHECK(c.segments() == 5);
  CHECK(c.enabled());
  c.transformation(0.1, false, 11.0, 0);
  CHECK_FALSE(c.enabled());
}

TEST_CASE("the controller without adaptation keeps a fixed ratio") {
  adaptive_arguments args;
  args.adaptive = false;
  args.fixed_ratio = 0.7;
  adaptive_controller c(args);
  c.transformation(0.7, false, 100, 0);
  CHECK(c.enabled());
  CHECK(c.ratio() == doctest::Approx(0.7));
}

TEST_CASE("adaptive arguments are validated by name") {
  adaptive_arguments args;
  args.ratio_step = 0;
  CHECK_THROWS_WITH_AS(adaptive_controller{args}, doctest::Contains("ratio_step"), std::invalid_argument);
  args = {};
  args.min_ratio = 0.5;
  CHECK_THROWS_WITH_AS(adaptive_controller{args}, doctest::Contains("initial_ratio"), std::invalid_argument);
}

TEST_CASE("with depth 2 a transformation may take two kernel times: r' = r0*2*Torg/(Ttr+2*Tsav)") {
  adaptive_controller c({}, 2);
  c.original_kernel(10.0);
  c.transformation(0.1, true, 2.0, 9.0);
  CHECK(c.ratio() == doctest::Approx(0.1 * 2 * 10.0 / (2.0 + 2 * 1.0)));
}
