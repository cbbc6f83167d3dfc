// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "collatz/collatz_math.hpp"
#include "collatz/collatz_workload.hpp"
#include "julia/julia_workload.hpp"
#include "options.hpp"
#include "pathtrace/pathtrace_math.hpp"
#include "pathtrace/pathtrace_workload.hpp"
#include "task_lengths.hpp"
#include "walk/walk_math.hpp"
#include "walk/walk_workload.hpp"

using namespace microsched;
using namespace microsched::workloads;

TEST_CASE("workload options: defaults, ranges and unknown names") {
  const std::vector<parameter> known = {{"width", "2048", ""}, {"kill", "0.01", ""}};
  CHECK(integer_option({}, known, "width", 1, 100000) == 2048);
  CHECK(integer_option({{"width", "17"}}, known, "width", 1, 100000) == 17);
  CHECK_THROWS_WITH_AS((void)integer_option({{"width", "0"}}, known, "width", 1, 100000),
                       "width = 0: expected an integer in 1..100000", std::invalid_argument);
  CHECK_THROWS_AS((void)integer_option({{"width", "-3"}}, known, "width", 1, 100000),
                  std::invalid_argument);
  CHECK_THROWS_AS((void)integer_option({{"width", "12abc"}}, known, "width", 1, 100000),
                  std::invalid_argument);
  CHECK(real_option({}, known, "kill", 0.0, 1.0) == doctest::Approx(0.01));
  CHECK_THROWS_AS((void)real_option({{"kill", "1.5"}}, known, "kill", 0.0, 1.0),
                  std::invalid_argument);
  CHECK_THROWS_AS((void)real_option({{"kill", "nan"}}, known, "kill", 0.0, 1.0),
                  std::invalid_argument);
  CHECK_THROWS_WITH_AS(reject_unknown("julia", {{"colour", "red"}}, known),
                       "julia: unknown option 'colour' (known: width, kill)",
                       std::invalid_argument);
}

TEST_CASE("julia settings: the islands view by default, siegel on request, nothing else") {
  CHECK(parse_julia_settings({}).view == "islands");
  CHECK(parse_julia_settings({{"view", "siegel"}}).view == "siegel");
  CHECK_THROWS_WITH_AS((void)parse_julia_settings({{"view", "mandelbrot"}}),
                       "view = mandelbrot: expected islands, siegel, seahorse, dust or neck",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_julia_settings({{"offset", "2.5"}}),
                       doctest::Contains("offset = 2.5"), std::invalid_argument);
}

TEST_CASE("julia settings: every named view, any c, and errors that name the value") {
  for (const char* view : {"islands", "siegel", "seahorse", "dust", "neck"}) {
    const auto s = parse_julia_settings({{"view", view}});
    CHECK(s.view == view);
    CHECK_FALSE(s.custom_c);
  }
  const auto dust = parse_julia_settings({{"view", "dust"}});
  CHECK(dust.cx == -0.8);
  CHECK(dust.cy == 0.156);
  const auto custom =
      parse_julia_settings({{"c", "0.285,-0.01"}, {"view", "seahorse"}, {"offset", "1"}});
  CHECK(custom.custom_c);
  CHECK(custom.cx == 0.285);
  CHECK(custom.cy == -0.01);
  CHECK(custom.view == "seahorse");
  CHECK(custom.offset == 1.0);
  CHECK_FALSE(parse_julia_settings({{"c", ""}}).custom_c);  // empty: the view's own c
  for (const char* bad :
       {"0.3", "0.3;0.1", "x,0.1", "0.1,", ",0.1", "0.1,0.2,0.3", "2.5,0", "0,-3", "nan,0"}) {
    CAPTURE(bad);
    const std::string message = "c = " + std::string(bad) + ": expected two numbers";
    CHECK_THROWS_WITH_AS((void)parse_julia_settings({{"c", bad}}),
                         doctest::Contains(message.c_str()), std::invalid_argument);
  }
  CHECK_THROWS_WITH_AS((void)parse_julia_settings({{"view", "mandelbrot"}}),
                       "view = mandelbrot: expected islands, siegel, seahorse, dust or neck",
                       std::invalid_argument);
  CHECK(parse_julia_settings({{"width", "65536"}, {"height", "65535"}}).height == 65535);
  CHECK_THROWS_WITH_AS((void)parse_julia_settings({{"width", "65536"}, {"height", "65536"}}),
                       "width x height = 65536 x 65536: at most 2^32 - 1 pixels",
                       std::invalid_argument);
}

TEST_CASE(
    "julia task lengths: the escaping views escape everywhere, short on average, long tails") {
  for (const char* view : {"seahorse", "dust", "neck"}) {
    for (const char* precision : {"float", "double"}) {
      CAPTURE(view);
      CAPTURE(precision);
      const auto s = parse_julia_settings(
          {{"view", view}, {"precision", precision}, {"width", "512"}, {"height", "512"}});
      const auto steps = julia_task_lengths(s);
      const task_length_stats stats = summarize_task_lengths(steps);
      CHECK(stats.tasks == 512u * 512u);
      CHECK(stats.max < s.crunch);  // every pixel escapes before the crunch
      CHECK(stats.mean < 30);
      CHECK(stats.max > 500);
      CHECK(stats.warp_max_over_mean > 2);
    }
  }
  // An interior view does not: the islands' pixels run to the crunch.
  const auto islands =
      parse_julia_settings({{"width", "128"}, {"height", "128"}, {"crunch", "300"}});
  CHECK(summarize_task_lengths(julia_task_lengths(islands)).max == 300);
}

TEST_CASE("task length statistics") {
  std::vector<std::uint32_t> steps(64, 2);
  steps[5] = 34;  // warp 0: max 34; warp 1: max 2
  const task_length_stats s = summarize_task_lengths(steps);
  CHECK(s.tasks == 64);
  CHECK(s.mean == doctest::Approx(2.5));
  CHECK(s.max == 34);
  CHECK(s.p99 == 34);
  CHECK(s.warp_max_over_mean == doctest::Approx(18.0 / 2.5));
  CHECK(summarize_task_lengths({7}).warp_max_over_mean == doctest::Approx(1.0));
  CHECK_THROWS_AS((void)summarize_task_lengths({}), std::invalid_argument);
}

TEST_CASE("collatz: total stopping times and the 64-bit bound on starts") {
  CHECK(kernels::collatz_total_steps(2) == 1);
  CHECK(kernels::collatz_total_steps(3) == 7);
  CHECK(kernels::collatz_total_steps(27) == 111);
  CHECK(kernels::collatz_total_steps(97) == 118);
  CHECK(kernels::collatz_total_steps(871) == 178);
  // The last start below the bound climbs to 1.81e19, inside 64 bits (OEIS A006885).
  CHECK(kernels::collatz_total_steps(8528817511ull) > 0);
  CHECK(collatz_task_lengths({3, 25}) == std::vector<std::uint32_t>{23, 10, 111});

  const auto d = parse_collatz_settings({});
  CHECK(d.tasks == 16777216u);
  CHECK(d.first == 4294967296ull);
  CHECK(parse_collatz_settings({{"first", "12327829500"}, {"tasks", "3"}}).tasks == 3);
  CHECK_THROWS_WITH_AS((void)parse_collatz_settings({{"first", "12327829500"}, {"tasks", "4"}}),
                       doctest::Contains("the last start, 12327829503, is beyond 12327829502"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_collatz_settings({{"first", "1"}}),
                       doctest::Contains("first = 1: expected an integer in 2.."),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_collatz_settings({{"start", "5"}}),
                       doctest::Contains("collatz: unknown option 'start'"), std::invalid_argument);
  CHECK(workload_parameters("collatz").size() == 2);
}

TEST_CASE("walk: the generator, the bounds, the mean of half-width squared steps") {
  CHECK(kernels::xorshift32(1) == 270369u);  // Marsaglia's 13, 17, 5 from state 1
  CHECK(kernels::walk_seed(0, 0) != 0);
  CHECK(kernels::walk_seed(1, 0) != kernels::walk_seed(2, 0));
  CHECK(kernels::walk_seed(5, 0) != kernels::walk_seed(5, 1));
  CHECK(kernels::walk_seed(std::uint64_t{1} << 32, 0) != kernels::walk_seed(0, 0));
  // Half-width 1 ends after one step; a walk ends at a bound (parity: an even bound takes an even
  // number of steps) or at the step limit.
  CHECK(kernels::walk_total_steps(7, 0, 1, 100) == 1);
  CHECK(kernels::walk_total_steps(7, 0, 1000, 10) == 10);
  for (std::uint64_t t = 0; t < 200; ++t)
    CHECK(kernels::walk_total_steps(t, 3, 4, 1u << 20) % 2 == 0);

  walk_settings s;
  s.tasks = 200000;
  for (const std::int32_t w : {3, 4}) {
    s.half_width = w;
    const auto steps = walk_task_lengths(s);
    const task_length_stats stats = summarize_task_lengths(steps);
    // The expected exit time from 0 of a symmetric walk is half-width^2 (the standard error of
    // the mean over 200000 walks is below 0.05 steps).
    CHECK(stats.mean == doctest::Approx(double(w) * w).epsilon(0.02));
    CHECK(stats.max > 8u * static_cast<unsigned>(w * w));  // a long geometric tail
  }

  const auto d = parse_walk_settings({});
  CHECK(d.tasks == 16777216u);
  CHECK(d.half_width == 4);
  CHECK(parse_walk_settings({{"half-width", "3"}, {"seed", "4294967295"}}).seed == 4294967295u);
  CHECK_THROWS_WITH_AS((void)parse_walk_settings({{"half-width", "0"}}),
                       doctest::Contains("half-width = 0: expected an integer in 1..1024"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_walk_settings({{"tasks", "-1"}}),
                       doctest::Contains("tasks = -1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_walk_settings({{"width", "5"}}),
                       doctest::Contains("walk: unknown option 'width'"), std::invalid_argument);
  CHECK(workload_parameters("walk").size() == 3);
}

TEST_CASE("pathtrace: heavy contexts, data-dependent path lengths with a tail, its options") {
  CHECK(sizeof(kernels::pt_path) >= 100);
  CHECK(kernels::pt_key(1, 0) != kernels::pt_key(2, 0));
  CHECK(kernels::pt_key(5, 0) != kernels::pt_key(5, 1));
  for (std::uint32_t k = 0; k < 3; ++k) {
    const float u = kernels::pt_uniform(kernels::pt_key(9, 0), 4, k);
    CHECK(u >= 0.0f);
    CHECK(u < 1.0f);
  }
  pathtrace_settings s;
  s.width = 64;
  s.height = 64;
  s.spp = 4;
  const auto bounces = pathtrace_task_lengths(s);
  REQUIRE(bounces.size() == 64u * 64u * 4u);
  const task_length_stats stats = summarize_task_lengths(bounces);
  // Most paths end within a few bounces (roulette from the third), some go on for dozens: the
  // longest of 32 neighbours takes about 2.7 times the mean.
  CHECK(stats.mean > 2.5);
  CHECK(stats.mean < 8.0);
  CHECK(stats.max >= 20u);
  CHECK(stats.max <= s.max_depth);
  CHECK(stats.warp_max_over_mean > 2.0);
  s.max_depth = 2;
  CHECK(summarize_task_lengths(pathtrace_task_lengths(s)).max <= 2u);

  const auto d = parse_pathtrace_settings({});
  CHECK(d.width == 1024u);
  CHECK(d.spp == 16u);
  CHECK(d.max_depth == 64u);
  CHECK_THROWS_WITH_AS((void)parse_pathtrace_settings({{"spp", "0"}}), doctest::Contains("spp = 0"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(
      (void)parse_pathtrace_settings({{"width", "65536"}, {"height", "65536"}, {"spp", "2"}}),
      doctest::Contains("8589934592 paths; at most 2^32"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_pathtrace_settings({{"view", "box"}}),
                       doctest::Contains("pathtrace: unknown option 'view'"),
                       std::invalid_argument);
  CHECK(workload_parameters("pathtrace").size() == 5);
}
