// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host tests of the regrouping algorithms, the BBV regression and the latency cache.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "microsched/model/latency.hpp"
#include "microsched/model/metrics.hpp"
#include "microsched/model/regression.hpp"
#include "microsched/model/regroup.hpp"

using namespace microsched::model;

namespace {

//! `items` BBVs drawn from `patterns` random patterns of `regions` counts (seeded).
bbv_matrix patterned_bbvs(std::size_t items, std::size_t regions, int patterns, unsigned seed,
                          bool equal_share = false) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint32_t> count(0, 40);
  std::vector<std::vector<std::uint32_t>> pattern(static_cast<std::size_t>(patterns));
  for (auto& p : pattern)
    for (std::size_t b = 0; b < regions; ++b) p.push_back(count(rng));
  bbv_matrix m(items, regions);
  std::uniform_int_distribution<int> pick(0, patterns - 1);
  std::vector<int> which(items);
  for (std::size_t i = 0; i < items; ++i)
    which[i] = equal_share ? static_cast<int>(i % static_cast<std::size_t>(patterns)) : pick(rng);
  std::shuffle(which.begin(), which.end(), rng);
  for (std::size_t i = 0; i < items; ++i)
    std::copy(pattern[which[i]].begin(), pattern[which[i]].end(), m.row(i).begin());
  return m;
}

bool is_permutation_of(const std::vector<std::uint32_t>& order, std::size_t n) {
  std::vector<std::uint32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != i) return false;
  return sorted.size() == n;
}

}  // namespace

TEST_CASE("every regrouping is a permutation; identical BBVs share groups") {
  const std::vector<double> lat{3, 1, 7, 2};
  for (const int groupsize : {32, 64}) {
    for (const auto method : {regroup_method::original, regroup_method::sorting,
                              regroup_method::greedy, regroup_method::greedy_max}) {
      CAPTURE(groupsize);
      CAPTURE(to_string(method));
      const auto random = patterned_bbvs(1000, 4, 300, 11);  // 1000: the last group is partial
      CHECK(is_permutation_of(regroup(method, random, lat, {groupsize}), 1000));
      if (method == regroup_method::original) continue;
      // 8 patterns, 8 * groupsize items of each: every group must be pure
      const std::size_t n = 8 * 8 * static_cast<std::size_t>(groupsize);
      const auto bbv = patterned_bbvs(n, 4, 8, 5, true);
      const auto order = regroup(method, bbv, lat, {groupsize});
      REQUIRE(is_permutation_of(order, n));
      std::size_t impure = 0;
      for (std::size_t g = 0; g < n; g += static_cast<std::size_t>(groupsize)) {
        const auto first = bbv.row(order[g]);
        for (std::size_t s = g; s < g + static_cast<std::size_t>(groupsize); ++s)
          if (!std::ranges::equal(bbv.row(order[s]), first)) ++impure;
      }
      CHECK(impure == 0);
      const gpu_shape shape{4, 2, 2 * groupsize};
      CHECK(bbv_weighted(bbv, lat, order, shape) <= bbv_weighted(bbv, lat, {}, shape));
    }
  }
}

TEST_CASE("Greedy-Max puts the longest groups first") {
  const std::vector<double> lat{1, 5};
  const auto bbv = patterned_bbvs(4096, 2, 50, 3);
  const auto order = greedy_max_order(bbv, lat);
  std::vector<double> group_lat;
  for (std::size_t g = 0; g < order.size(); g += 32)
    group_lat.push_back(thread_latency(bbv.row(order[g]), lat));  // each group's seed
  CHECK(std::is_sorted(group_lat.rbegin(), group_lat.rend()));
}

TEST_CASE("Greedy scales to a large launch (neighbour candidates, not all pairs)") {
  const std::vector<double> lat{2, 1, 4};
  const auto bbv = patterned_bbvs(200000, 3, 5000, 9);
  const auto greedy = greedy_order(bbv, lat);
  const auto greedy_max = greedy_max_order(bbv, lat);
  CHECK(is_permutation_of(greedy, bbv.items));
  CHECK(is_permutation_of(greedy_max, bbv.items));
  const gpu_shape shape{8, 2, 256};  // many waves: the scheduled estimate sees every block
  const double original = bbv_weighted_scheduled(bbv, lat, {}, shape);
  CHECK(bbv_weighted_scheduled(bbv, lat, greedy, shape) < original);
  CHECK(bbv_weighted_scheduled(bbv, lat, greedy_max, shape) < original);
}

TEST_CASE("bad input to the regroupings gets a clear error") {
  const std::vector<double> lat{1};
  const auto bbv = patterned_bbvs(64, 1, 3, 1);
  CHECK_THROWS_WITH_AS((void)regroup(regroup_method::greedy, bbv, lat, {0}),
                       doctest::Contains("groupsize = 0"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)regroup(regroup_method::sorting, bbv, lat, {48}),
                       doctest::Contains("groupsize = 48"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)greedy_max_order(bbv, lat, {32, 0}), doctest::Contains("window = 0"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)sorting_order(bbv_matrix{}), doctest::Contains("bbv items = 0"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)greedy_order(bbv, std::vector<double>{1, 2}),
                       doctest::Contains("latency size = 2"), std::invalid_argument);
}

TEST_CASE("regression (eq. 1) recovers a known linear model from a sample") {
  // count0 = 13 + 2 f0 - f1, count1 = 1 + 3 item (a thread-id dependence), count2 = 4 f1
  const std::size_t n = 5000;
  std::mt19937 rng(2);
  std::uniform_int_distribution<int> f0(0, 10), f1(0, 3);
  feature_matrix features{n, 2, {}};
  bbv_matrix exact(n, 3);
  for (std::size_t i = 0; i < n; ++i) {
    const int a = f0(rng), b = f1(rng);
    features.values.insert(features.values.end(), {double(a), double(b)});
    exact.row(i)[0] = static_cast<std::uint32_t>(3 + 2 * a + 10 - b);
    exact.row(i)[1] = static_cast<std::uint32_t>(1 + 3 * i);
    exact.row(i)[2] = static_cast<std::uint32_t>(4 * b);
  }
  // example-begin regression
  std::vector<std::uint32_t> sample(256);  // items run instrumented: 0, 19, 38, ...
  for (std::size_t k = 0; k < sample.size(); ++k) sample[k] = static_cast<std::uint32_t>(k * 19);
  bbv_matrix sample_counts(sample.size(), exact.regions);
  for (std::size_t k = 0; k < sample.size(); ++k)
    std::ranges::copy(exact.row(sample[k]), sample_counts.row(k).begin());
  const bbv_regression fit =
      fit_bbv_regression(select_rows(features, sample), sample, sample_counts);
  const bbv_matrix predicted = predict_bbvs(fit, features);  // every item, from its features
  // example-end regression
  CHECK(fit.beta[0] == doctest::Approx(13).epsilon(1e-6));
  CHECK(fit.beta[1] == doctest::Approx(2).epsilon(1e-6));
  CHECK(fit.beta[2] == doctest::Approx(-1).epsilon(1e-6));
  CHECK(fit.beta[4 + 3] == doctest::Approx(3).epsilon(1e-6));  // region 1: item coefficient
  CHECK(predicted.counts == exact.counts);
  CHECK(mean_abs_error(predicted, exact) == 0);
  CHECK_THROWS_WITH_AS((void)fit_bbv_regression(select_rows(features, sample),
                                                std::vector<std::uint32_t>(5, 0), sample_counts),
                       doctest::Contains("sample_items size = 5"), std::invalid_argument);
  CHECK_THROWS_AS((void)fit_bbv_regression(feature_matrix{}, {}, bbv_matrix{}),
                  std::invalid_argument);
}

TEST_CASE("latency cache: one file per GPU, one line per kernel, replaced atomically") {
  const auto folder = std::filesystem::temp_directory_path() / "microsched-model-cache-test";
  std::filesystem::remove_all(folder);
  const latency_cache cache(folder);
  CHECK_FALSE(cache.load("NVIDIA H100 80GB HBM3", "mc").has_value());
  cache.store("NVIDIA H100 80GB HBM3", "mc", std::vector<double>{12.5, 300});
  cache.store("NVIDIA H100 80GB HBM3", "align", std::vector<double>{7});
  cache.store("NVIDIA H100 80GB HBM3", "mc", std::vector<double>{13.5, 301});
  cache.store("Other GPU", "mc", std::vector<double>{1, 2});
  CHECK(cache.load("NVIDIA H100 80GB HBM3", "mc") == std::vector<double>{13.5, 301});
  CHECK(cache.load("NVIDIA H100 80GB HBM3", "align") == std::vector<double>{7});
  CHECK(cache.load("Other GPU", "mc") == std::vector<double>{1, 2});
  CHECK(cache.file_for("NVIDIA H100 80GB HBM3").filename() == "NVIDIA_H100_80GB_HBM3.latency");
  CHECK_THROWS_AS(cache.store("x", "bad key", std::vector<double>{1}), std::invalid_argument);
  std::filesystem::remove_all(folder);
}
