// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host tests of the divergence model: BBV arithmetic, the two metrics on hand-worked launches,
// the decision API and bad input.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "microsched/model/bbv.hpp"
#include "microsched/model/decision.hpp"
#include "microsched/model/metrics.hpp"

using namespace microsched::model;

namespace {
bbv_matrix make_bbv(std::size_t regions, const std::vector<std::vector<std::uint32_t>>& rows) {
  bbv_matrix m(rows.size(), regions);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t b = 0; b < regions; ++b) m.counts[i * regions + b] = rows[i][b];
  return m;
}
}  // namespace

TEST_CASE("BBV arithmetic: latency, lexicographic order, extent, benefit, cost, gain") {
  const std::vector<double> lat{18, 46, 264};
  const std::vector<std::uint32_t> a{1, 20, 10}, b{1, 30, 20}, c{2, 0, 0};
  CHECK(thread_latency(a, lat) == doctest::Approx(18 + 46 * 20 + 264 * 10));
  CHECK(lexicographic_less(a, b));
  CHECK_FALSE(lexicographic_less(b, a));
  CHECK(lexicographic_less(b, c));
  CHECK_FALSE(lexicographic_less(a, a));
  group_extent g(3);
  g.add(a);
  g.add(b);
  CHECK(g.min == std::vector<std::uint32_t>{1, 20, 10});
  CHECK(g.max == std::vector<std::uint32_t>{1, 30, 20});
  // benefit: shared work (eq. 8); cost: the work some wait for (eq. 9)
  CHECK(benefit(g, lat) == doctest::Approx(18 * 1 + 46 * 20 + 264 * 10));
  CHECK(cost(g, lat) == doctest::Approx(46 * 10 + 264 * 10));
  CHECK(gain(g, lat) == doctest::Approx(benefit(g, lat) - cost(g, lat)));
  CHECK(gain_with(g, c, lat) == doctest::Approx(gain(g.merged([&] {
          group_extent e(3);
          e.add(c);
          return e;
        }()),
                                                     lat)));
  group_extent same(3);  // identical BBVs merge at no cost
  same.add(a);
  same.add(a);
  CHECK(cost(same, lat) == 0);
  CHECK(gain(same, lat) == doctest::Approx(thread_latency(a, lat)));
}

// Figure 3 style: a warp pays each region's latency times its slowest lane's count.
TEST_CASE("BBV-weighted and BBV-weighted-scheduled on a hand-worked launch") {
  std::vector<std::vector<std::uint32_t>> rows(64, {1, 2});
  rows[0] = {5, 0};                                // warp 0: max {5, 2} -> 5*10 + 2*1 = 52
  for (int i = 32; i < 64; ++i) rows[i] = {1, 0};  // warp 1: max {1, 0} -> 10
  const auto bbv = make_bbv(2, rows);
  const std::vector<double> lat{10, 1};
  CHECK(block_costs(bbv, lat, {}, 32) == std::vector<double>{52, 10});
  CHECK(block_costs(bbv, lat, {}, 64) == std::vector<double>{62});
  const gpu_shape one{1, 1, 32}, two{2, 1, 32};
  CHECK(bbv_weighted(bbv, lat, {}, one) == doctest::Approx(62));
  CHECK(bbv_weighted_scheduled(bbv, lat, {}, one) == doctest::Approx(62));
  CHECK(bbv_weighted(bbv, lat, {}, two) == doctest::Approx(31));            // eq. 5 assumes balance
  CHECK(bbv_weighted_scheduled(bbv, lat, {}, two) == doctest::Approx(52));  // the long block
  // moving item 0 into warp 1 (swap with item 32): warp 0 {1, 2} = 12, warp 1 {5, 0} = 50
  auto order = identity_order(64);
  std::swap(order[0], order[32]);
  CHECK(block_costs(bbv, lat, order, 32) == std::vector<double>{12, 50});
}

// Two lanes of one warp run a loop 10 and 4 times and take its branch in half their iterations.
// Iterations 4-9 hold lane 0 alone (it takes the branch with probability 1/2), iterations 0-3
// both (1 - 1/4): the warp runs the branch 6 * 1/2 + 4 * 3/4 = 6 times, not max(5, 2) = 5.
TEST_CASE("a branch inside a loop costs the iterations in which any lane takes it") {
  auto bbv = make_bbv(3, {{10, 5, 5}, {4, 2, 2}});
  CHECK(warp_counts(bbv, {}) == std::vector<double>{10, 5, 5});  // eq. 2 without loop_of
  bbv.loop_of = {-1, 0, 0};
  const auto counts = warp_counts(bbv, {});
  CHECK(counts[0] == 10);
  CHECK(counts[1] == doctest::Approx(6));
  CHECK(counts[2] == doctest::Approx(6));
  const std::vector<double> lat{1, 10, 100};
  const auto costs = warp_costs(bbv, lat, {});
  REQUIRE(costs.size() == 1);
  CHECK(costs[0] == doctest::Approx(10 + 60 + 600));

  SUBCASE("one lane, a branch never or always taken: the counts themselves") {
    const auto one = [](std::vector<std::uint32_t> row) {
      auto m = make_bbv(3, {row});
      m.loop_of = {-1, 0, 0};
      return warp_counts(m, {});
    };
    const auto c = one({8, 3, 0});
    CHECK(c[0] == 8);
    CHECK(c[1] == doctest::Approx(3));
    CHECK(c[2] == 0);
    CHECK(one({8, 8, 8})[1] == doctest::Approx(8));
    CHECK(one({0, 0, 0}) == std::vector<double>{0, 0, 0});
  }
  SUBCASE("32 lanes alternating two branches run both in almost every iteration") {
    auto full = make_bbv(3, std::vector<std::vector<std::uint32_t>>(32, {100, 20, 80}));
    full.loop_of = {-1, 0, 0};
    const auto c = warp_counts(full, {});
    CHECK(c[1] == doctest::Approx(100 * (1 - std::pow(0.8, 32))));
    CHECK(c[2] > 99.99);
  }
  SUBCASE("a lane counting the branch more often than its loop keeps eq. 2's count") {
    auto odd = make_bbv(3, {{2, 7, 0}, {3, 1, 1}});
    odd.loop_of = {-1, 0, 0};
    CHECK(warp_counts(odd, {})[1] == 7);
  }
  SUBCASE("bad loop_of names the value") {
    bbv.loop_of = {-1, 0};
    CHECK_THROWS_WITH_AS((void)warp_counts(bbv, {}), doctest::Contains("loop_of size = 2"),
                         std::invalid_argument);
    bbv.loop_of = {-1, 1, 0};
    CHECK_THROWS_WITH_AS((void)warp_counts(bbv, {}), doctest::Contains("loop_of entry = 1"),
                         std::invalid_argument);
    bbv.loop_of = {-1, 3, 0};
    CHECK_THROWS_WITH_AS((void)warp_counts(bbv, {}), doctest::Contains("loop_of entry = 3"),
                         std::invalid_argument);
    bbv.loop_of = {1, 0, -1};
    CHECK_THROWS_WITH_AS((void)warp_costs(bbv, lat, {}), doctest::Contains("loop region = 1"),
                         std::invalid_argument);
  }
}

TEST_CASE("round robin: long blocks first shorten the tail (Figure 5)") {
  CHECK(round_robin_makespan(std::vector<double>{4, 1, 1, 1, 1}, 2) == doctest::Approx(4));
  CHECK(round_robin_makespan(std::vector<double>{1, 1, 1, 1, 4}, 2) == doctest::Approx(6));
  CHECK(round_robin_makespan(std::vector<double>{3, 3, 3}, 5) == doctest::Approx(3));
  // an SM shares its throughput: a warp left alone runs faster, a lone block at its measured speed
  const std::vector<double> two_warps{10, 2};
  CHECK(simulate_sms(two_warps, 1, {1, 2, 32, 2.0}) == doctest::Approx(6));  // 2 + 8 / 2
  CHECK(simulate_sms(two_warps, 1, {1, 2, 32, 1.5}) == doctest::Approx(2 + 8 / 1.5));
  CHECK(simulate_sms(two_warps, 1, {1, 2, 32, 1.0}) == doctest::Approx(10));  // no faster alone
  CHECK(simulate_sms(two_warps, 1, {2, 1, 32}) == doctest::Approx(10));       // one SM each
  // Between a full SM and one block, the SM's throughput saturates: with 8 warps at full
  // occupancy and a lone block (one warp) twice as fast, k warps run 14 / (k + 6) times their
  // full speed (a = 0.75): 4 warps at 1.4, not at 2 (the line min(2, 8 / k)). Four warps of 1
  // end at 1; the four of 10 run their last 9 at 1.4.
  const std::vector<double> eight{1, 1, 1, 1, 10, 10, 10, 10};
  CHECK(simulate_sms(eight, 1, {1, 8, 32, 2.0}) == doctest::Approx(1 + 9 / 1.4));
  // blocks end with their last warp; the next block takes the freed place
  const std::vector<double> four{4, 1, 3, 3};  // blocks {4, 1} and {3, 3}, one SM, one block
  CHECK(simulate_sms(four, 2, {1, 1, 64}) == doctest::Approx(7));
  // co-resident blocks share their SM: balanced launches get eq. 5's estimate
  const auto bbv = make_bbv(1, std::vector<std::vector<std::uint32_t>>(128, {3}));
  const std::vector<double> lat{2};
  const gpu_shape shape{1, 2, 32};
  CHECK(bbv_weighted_scheduled(bbv, lat, {}, shape) ==
        doctest::Approx(bbv_weighted(bbv, lat, {}, shape)));
}

TEST_CASE("decision: forecasts every regrouping and picks one only when it pays") {
  std::vector<std::vector<std::uint32_t>> rows;
  for (int i = 0; i < 2048; ++i) rows.push_back({1, i % 8 == 0 ? 100u : 0u});  // 1 in 8 is long
  const auto bbv = make_bbv(2, rows);
  const std::vector<double> lat{5, 20};
  const gpu_shape shape{4, 2, 64};
  // example-begin forecast
  const regroup_decision decision = forecast_regroupings(bbv, lat, shape);
  const regroup_forecast& best = decision.chosen();  // the original order if nothing pays
  const bool pays = remap_can_pay(
      {.original_ms = 2.0, .predicted_speedup = best.predicted_speedup, .remap_ms = best.host_ms});
  // example-end forecast
  REQUIRE(decision.forecasts.size() == 4);
  CHECK(decision.forecasts[0].method == regroup_method::original);
  CHECK(decision.forecasts[0].predicted_speedup == doctest::Approx(1));
  CHECK(best.method != regroup_method::original);
  CHECK(best.predicted_speedup > 3.5);  // every warp had 4 long lanes; now 1 warp in 8 has 32
  for (const auto& f : decision.forecasts) CHECK(f.predicted_speedup <= best.predicted_speedup);
  (void)pays;
  const auto flat = make_bbv(2, std::vector<std::vector<std::uint32_t>>(2048, {1, 3}));
  CHECK(forecast_regroupings(flat, lat, shape).best == 0);
}

TEST_CASE("remap_can_pay weighs the predicted saving against the remap's cost") {
  CHECK(remap_can_pay({.original_ms = 2, .predicted_speedup = 2, .remap_ms = 0.5}));
  CHECK_FALSE(remap_can_pay({.original_ms = 2, .predicted_speedup = 2, .remap_ms = 1.5}));
  CHECK(remap_can_pay(
      {.original_ms = 2, .predicted_speedup = 2, .remap_ms = 1.5, .launches_per_remap = 2}));
  CHECK_FALSE(remap_can_pay({.original_ms = 2, .predicted_speedup = 1.001, .remap_ms = 0}));
  CHECK_FALSE(remap_can_pay({.original_ms = 2, .predicted_speedup = 0.8, .remap_ms = 0}));
  CHECK_THROWS_AS((void)remap_can_pay({.original_ms = 0, .predicted_speedup = 2}),
                  std::invalid_argument);
  CHECK_THROWS_AS(
      (void)remap_can_pay({.original_ms = 1, .predicted_speedup = 2, .launches_per_remap = 0}),
      std::invalid_argument);
}

TEST_CASE("bad input to the metrics gets a clear error before any work") {
  const std::vector<double> lat{1, 2};
  const auto bbv = make_bbv(2, std::vector<std::vector<std::uint32_t>>(40, {1, 1}));
  const gpu_shape shape{2, 1, 32};
  CHECK_THROWS_WITH_AS((void)bbv_weighted(bbv_matrix{}, lat, {}, shape),
                       doctest::Contains("bbv items = 0"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)bbv_weighted(bbv, std::vector<double>{1}, {}, shape),
                       doctest::Contains("latency size = 1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)bbv_weighted_scheduled(bbv, lat, {}, {0, 1, 32}),
                       doctest::Contains("sm_count = 0"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)bbv_weighted_scheduled(bbv, lat, {}, {1, 1, 32, 0.5}),
                       doctest::Contains("lone_block_speedup"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)bbv_weighted_scheduled(bbv, lat, {}, {1, 1, 48}),
                       doctest::Contains("threads_per_block = 48"), std::invalid_argument);
  const std::vector<std::uint32_t> short_order{0, 1, 2};
  CHECK_THROWS_WITH_AS((void)bbv_weighted(bbv, lat, short_order, shape),
                       doctest::Contains("order size = 3"), std::invalid_argument);
  auto twice = identity_order(40);
  twice[5] = 4;
  CHECK_THROWS_WITH_AS((void)bbv_weighted(bbv, lat, twice, shape),
                       doctest::Contains("appears twice"), std::invalid_argument);
  bbv_matrix ragged = bbv;
  ragged.counts.pop_back();
  CHECK_THROWS_WITH_AS(validate(ragged), doctest::Contains("bbv counts size = 79"),
                       std::invalid_argument);
  CHECK_THROWS_AS((void)bbv_weighted(bbv, std::vector<double>{1, -1}, {}, shape),
                  std::invalid_argument);
}
