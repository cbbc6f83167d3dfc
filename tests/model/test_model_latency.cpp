// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host tests of the latency fit (warp cycles, non-negative least squares, the lone-block speed)
// and of the residual resampling that rates orders built from predicted BBVs.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "microsched/model/decision.hpp"
#include "microsched/model/latency.hpp"
#include "microsched/model/metrics.hpp"
#include "microsched/model/regression.hpp"
#include "microsched/model/regroup.hpp"

using namespace microsched::model;

namespace {

bbv_matrix random_bbvs(std::size_t items, std::size_t regions, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint32_t> count(0, 60);
  bbv_matrix m(items, regions);
  for (auto& c : m.counts) c = count(rng);
  return m;
}

//! Lane cycles for `order` such that every warp's longest lane is exactly the model's warp cost
//! under `latency` (its first lane carries it, the others less).
std::vector<std::uint32_t> lanes_for(const bbv_matrix& bbv, const std::vector<std::uint32_t>& order,
                                     const std::vector<double>& latency, double speed = 1.0) {
  std::vector<std::uint32_t> cycles(bbv.items, 0);
  const auto costs = warp_costs(bbv, latency, order);
  for (std::size_t slot = 0; slot < order.size(); ++slot)
    cycles[order[slot]] = slot % 32 == 0 ? static_cast<std::uint32_t>(costs[slot / 32] / speed)
                                         : static_cast<std::uint32_t>(slot % 32);
  return cycles;
}

}  // namespace

TEST_CASE("warp cycles are each warp's longest lane, in launch order") {
  const std::vector<std::uint32_t> order = {2, 0, 1};  // one partial warp
  const std::vector<std::uint32_t> cycles = {5, 9, 7};
  CHECK(warp_cycles({order, cycles}) == std::vector<double>{9});
  std::vector<std::uint32_t> big(40);
  std::iota(big.begin(), big.end(), 0u);
  std::vector<std::uint32_t> lane(40, 1);
  lane[3] = 50;
  lane[39] = 20;
  CHECK(warp_cycles({big, lane}) == std::vector<double>{50, 20});
  CHECK_THROWS_AS((void)warp_cycles({std::span<const std::uint32_t>{}, cycles}),
                  std::invalid_argument);
  const std::vector<std::uint32_t> outside = {3};
  CHECK_THROWS_WITH_AS((void)warp_cycles({outside, cycles}), doctest::Contains("item"),
                       std::invalid_argument);
}

TEST_CASE("fit_latencies recovers the latencies that made the warp cycles") {
  const bbv_matrix bbv = random_bbvs(32 * 200, 3, 5);
  const std::vector<double> truth = {120, 15, 900};
  const auto original = identity_order(bbv.items), sorted = sorting_order(bbv);
  const auto c1 = lanes_for(bbv, original, truth), c2 = lanes_for(bbv, sorted, truth);
  const timed_launch both[] = {{original, c1}, {sorted, c2}};
  const auto fitted = fit_latencies(bbv, both);
  REQUIRE(fitted.size() == 3);
  for (std::size_t r = 0; r < 3; ++r) CHECK(fitted[r] == doctest::Approx(truth[r]).epsilon(0.01));

  SUBCASE("branches inside a loop: the fit charges the iterations any lane takes them") {
    // region 0 counts a loop's iterations, regions 1 and 2 its two branches
    bbv_matrix loop(bbv.items, 3);
    loop.loop_of = {-1, 0, 0};
    std::mt19937 rng(9);
    for (std::size_t i = 0; i < loop.items; ++i) {
      const std::uint32_t n = 1 + rng() % 60, taken = rng() % (n + 1);
      loop.row(i)[0] = n;
      loop.row(i)[1] = taken;
      loop.row(i)[2] = n - taken;
    }
    const auto by_bbv = sorting_order(loop);
    const auto l1 = lanes_for(loop, original, truth), l2 = lanes_for(loop, by_bbv, truth);
    const timed_launch runs[] = {{original, l1}, {by_bbv, l2}};
    const auto f = fit_latencies(loop, runs);
    for (std::size_t r = 0; r < 3; ++r) CHECK(f[r] == doctest::Approx(truth[r]).epsilon(0.01));
  }
  SUBCASE("a region no warp executes gets 0") {
    bbv_matrix holes = bbv;
    for (std::size_t i = 0; i < holes.items; ++i) holes.row(i)[1] = 0;
    const auto h1 = lanes_for(holes, original, truth);
    const timed_launch one[] = {{original, h1}};
    const auto f = fit_latencies(holes, one);
    CHECK(f[1] == 0.0);
    CHECK(f[0] == doctest::Approx(truth[0]).epsilon(0.01));
    CHECK(f[2] == doctest::Approx(truth[2]).epsilon(0.01));
  }
  SUBCASE("no latency is negative, even where the unconstrained fit would be") {
    // warp cycles fall as region 1's maximum rises: least squares alone would go negative
    std::vector<std::uint32_t> falling(bbv.items, 0);
    const auto costs = warp_costs(bbv, std::vector<double>{100, 0, 0}, original);
    std::vector<double> max1(costs.size(), 0);
    for (std::size_t i = 0; i < bbv.items; ++i)
      max1[i / 32] = std::max(max1[i / 32], double(bbv.row(i)[1]));
    for (std::size_t w = 0; w < costs.size(); ++w)
      falling[w * 32] = static_cast<std::uint32_t>(std::max(1.0, costs[w] + 50 * (60 - max1[w])));
    const timed_launch one[] = {{original, falling}};
    const auto f = fit_latencies(bbv, one);
    for (const double l : f) CHECK(l >= 0.0);
    CHECK(f[1] == 0.0);
    CHECK(f[0] > 0.0);
  }
  SUBCASE("bad input names the value") {
    CHECK_THROWS_AS((void)fit_latencies(bbv, std::span<const timed_launch>{}),
                    std::invalid_argument);
    const std::vector<std::uint32_t> beyond = {static_cast<std::uint32_t>(bbv.items)};
    const std::vector<std::uint32_t> wide(bbv.items + 1, 5);
    const timed_launch bad[] = {{beyond, wide}};
    CHECK_THROWS_WITH_AS((void)fit_latencies(bbv, bad), doctest::Contains("BBV row"),
                         std::invalid_argument);
    const std::vector<std::uint32_t> zeros(bbv.items, 0);
    const timed_launch silent[] = {{original, zeros}};
    CHECK_THROWS_WITH_AS((void)fit_latencies(bbv, silent), doctest::Contains("no positive"),
                         std::invalid_argument);
  }
}

TEST_CASE("the lone-block speed compares the same warps alone and on a full GPU") {
  const std::size_t items = 256 * 40;
  std::vector<std::uint32_t> order(items);
  std::iota(order.begin(), order.end(), 0u);
  std::ranges::reverse(order);  // any order: warps are found by their items
  std::vector<std::uint32_t> full(items), alone(items, 0);
  for (std::size_t i = 0; i < items; ++i) full[i] = static_cast<std::uint32_t>(100 + i % 97);
  const auto lone = lone_blocks(order, 4, 256, 0);
  REQUIRE(lone.size() == 4 * 256);
  CHECK(std::equal(lone.begin(), lone.begin() + 256, order.begin()));
  CHECK(std::equal(lone.begin() + 256, lone.begin() + 512, order.begin() + 10 * 256));
  // the last wave (8 of the 40 blocks) is left out: blocks 0, 8, 16, 24
  const auto early = lone_blocks(order, 4, 256, 8);
  REQUIRE(early.size() == 4 * 256);
  CHECK(std::equal(early.begin() + 3 * 256, early.end(), order.begin() + 24 * 256));
  // one wave or less: every block counts
  CHECK(lone_blocks(order, 4, 256, 40) == lone);
  for (const std::uint32_t item : lone) alone[item] = static_cast<std::uint32_t>(full[item] / 2.5);
  CHECK(lone_block_speedup({order, full}, {lone, alone}) == doctest::Approx(2.5).epsilon(0.02));
  std::vector<std::uint32_t> slow(items, 0);
  for (const std::uint32_t item : lone) slow[item] = full[item] * 2;
  CHECK(lone_block_speedup({order, full}, {lone, slow}) == 1.0);
  // a lone warp that is not a warp of the full launch
  std::vector<std::uint32_t> shifted(lone.begin() + 1, lone.begin() + 33);
  CHECK_THROWS_WITH_AS((void)lone_block_speedup({order, full}, {shifted, alone}),
                       doctest::Contains("warp of the full launch"), std::invalid_argument);
  CHECK_THROWS_AS((void)lone_blocks(order, 0, 256, 0), std::invalid_argument);
  CHECK_THROWS_AS((void)lone_blocks(order, 4, 100, 0), std::invalid_argument);
}

TEST_CASE("resample_residuals puts the sample's residuals back into the predictions") {
  const std::size_t items = 1000;
  bbv_matrix predicted(items, 2);
  for (std::size_t i = 0; i < items; ++i) {
    predicted.row(i)[0] = static_cast<std::uint32_t>(10 + i % 50);  // distinct neighbourhoods
    predicted.row(i)[1] = static_cast<std::uint32_t>(i % 7);
  }
  std::vector<std::uint32_t> sample(100);
  for (std::size_t k = 0; k < sample.size(); ++k) sample[k] = static_cast<std::uint32_t>(k * 10);
  const std::vector<double> lat = {1, 1};

  SUBCASE("an exact prediction gets no residual") {
    bbv_matrix counts(sample.size(), 2);
    for (std::size_t k = 0; k < sample.size(); ++k)
      std::ranges::copy(predicted.row(sample[k]), counts.row(k).begin());
    CHECK(resample_residuals(predicted, sample, counts, lat).counts == predicted.counts);
  }
  SUBCASE("one neighbour: an item shaped like a sample item borrows that item's residual") {
    bbv_matrix counts(sample.size(), 2);
    for (std::size_t k = 0; k < sample.size(); ++k) {
      counts.row(k)[0] = predicted.row(sample[k])[0] + 3;
      counts.row(k)[1] = 0;  // below the prediction: the result clamps at 0, never wraps
    }
    const auto out = resample_residuals(predicted, sample, counts, lat, {.neighbours = 1});
    for (const std::uint32_t s : sample) {
      CHECK(out.row(s)[0] == predicted.row(s)[0] + 3);
      CHECK(out.row(s)[1] == 0u);
    }
    for (std::size_t i = 0; i < items; ++i) CHECK(out.row(i)[1] <= predicted.row(i)[1]);
  }
  SUBCASE("the draws come from the nearest sample items and repeat for a seed") {
    bbv_matrix counts(sample.size(), 2);
    for (std::size_t k = 0; k < sample.size(); ++k) {
      counts.row(k)[0] = predicted.row(sample[k])[0] + static_cast<std::uint32_t>(k % 5);
      counts.row(k)[1] = predicted.row(sample[k])[1];
    }
    const auto a = resample_residuals(predicted, sample, counts, lat, {.neighbours = 8});
    CHECK(a.counts == resample_residuals(predicted, sample, counts, lat, {.neighbours = 8}).counts);
    for (std::size_t i = 0; i < items; ++i) {
      CHECK(a.row(i)[0] >= predicted.row(i)[0]);
      CHECK(a.row(i)[0] <= predicted.row(i)[0] + 4);
    }
  }
  SUBCASE("bad input names the value") {
    bbv_matrix counts(sample.size(), 2);
    CHECK_THROWS_WITH_AS(
        (void)resample_residuals(predicted, sample, counts, lat, {.neighbours = 0}),
        doctest::Contains("neighbours"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(
        (void)resample_residuals(predicted, std::span(sample).first(10), counts, lat),
        doctest::Contains("sample items"), std::invalid_argument);
    std::vector<std::uint32_t> outside = sample;
    outside[0] = static_cast<std::uint32_t>(items);
    CHECK_THROWS_WITH_AS((void)resample_residuals(predicted, outside, counts, lat),
                         doctest::Contains("sample item"), std::invalid_argument);
    CHECK_THROWS_AS((void)resample_residuals(predicted, sample, bbv_matrix(sample.size(), 3), lat),
                    std::invalid_argument);
  }
}

TEST_CASE("a forecast rated on expected BBVs promises no gain the prediction cannot deliver") {
  // the prediction sees two kinds of items; really every item is the same long loop, so no
  // regrouping removes any divergence
  const std::size_t items = 32 * 256;
  bbv_matrix predicted(items, 1), expected(items, 1);
  for (std::size_t i = 0; i < items; ++i) {
    predicted.row(i)[0] = i % 2 == 0 ? 10 : 100;
    expected.row(i)[0] = 100;
  }
  const std::vector<double> lat = {1};
  const gpu_shape shape{2, 1, 256, 1.0};
  const auto naive = forecast_regroupings(predicted, lat, shape);
  CHECK(naive.chosen().predicted_speedup > 1.5);  // rated on its own predictions
  const auto rated = forecast_regroupings(predicted, expected, lat, shape);
  CHECK(rated.best == 0);
  for (const auto& f : rated.forecasts) CHECK(f.predicted_speedup == doctest::Approx(1.0));
  CHECK_THROWS_AS((void)forecast_regroupings(predicted, bbv_matrix(items - 1, 1), lat, shape),
                  std::invalid_argument);
  bbv_matrix two(items, 2), looped(items, 2);  // the same counts; only one names a loop
  looped.loop_of = {-1, 0};
  CHECK_THROWS_WITH_AS((void)forecast_regroupings(two, looped, std::vector<double>{1, 1}, shape),
                       doctest::Contains("loop_of of region = 1"), std::invalid_argument);
  two.loop_of = {-1, -1};  // no loop, said explicitly: the same as none
  looped.loop_of.clear();
  CHECK_NOTHROW((void)forecast_regroupings(two, looped, std::vector<double>{1, 1}, shape));
}
