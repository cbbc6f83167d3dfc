// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// LAM, regrouping, job swapping and reordering: bijective mappings, pure warps where the counts
// allow, and the hand-worked examples of zhang2010 and zhang2011.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "microsched/pipeline/job_swap.hpp"
#include "microsched/pipeline/lam.hpp"
#include "microsched/pipeline/regroup.hpp"
#include "microsched/pipeline/reorder.hpp"
#include "microsched/pipeline/thread_mapping.hpp"

using namespace microsched::pipeline;

namespace {
std::vector<std::uint32_t> random_values(std::size_t n, std::uint32_t range, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = rng() % range;
  return v;
}
std::size_t best_pure_warps(std::span<const std::uint32_t> keys, int warp) {
  std::vector<std::uint32_t> sorted(keys.begin(), keys.end());
  std::sort(sorted.begin(), sorted.end());
  std::size_t pure = 0, run = 1;
  for (std::size_t i = 1; i <= sorted.size(); ++i) {
    if (i < sorted.size() && sorted[i] == sorted[i - 1]) {
      ++run;
    } else {
      pure += run / static_cast<std::size_t>(warp);
      run = 1;
    }
  }
  return pure;
}
}  // namespace

TEST_CASE("permutation helpers") {
  const std::vector<index_t> p{2, 0, 1};
  CHECK(is_bijection(p));
  CHECK(invert(p) == std::vector<index_t>{1, 2, 0});
  CHECK_FALSE(is_bijection(std::vector<index_t>{0, 0, 1}));
  CHECK_FALSE(is_bijection(std::vector<index_t>{0, 3, 1}));
  CHECK_THROWS_AS((void)invert(std::vector<index_t>{1, 1}), std::invalid_argument);
  const std::vector<std::uint32_t> trips{1, 9, 1, 1, 9, 9, 1, 1};
  CHECK(warp_trip_cost(trips, identity(8), 4) == 18);
  CHECK(warp_trip_cost(trips, std::vector<index_t>{0, 2, 3, 6, 1, 4, 5, 7}, 4) == 10);
  CHECK_THROWS_WITH_AS((void)pure_warps(trips, identity(8), 0), doctest::Contains("warp"),
                       std::invalid_argument);
}

TEST_CASE("LAM reproduces zhang2011 Figure 4(c): one swap makes both warps pure") {
  // if (B[tid]): B = {0,0,6,0,0,2,4,1}, warps of 4; the paper swaps the jobs of threads 2 and 4.
  const std::vector<std::uint32_t> taken{0, 0, 1, 0, 0, 1, 1, 1};
  const lam_result r = lam_on_classes(taken, 2, 4);
  CHECK(r.destination == std::vector<index_t>{0, 1, 4, 3, 2, 5, 6, 7});
  CHECK(r.source() == std::vector<index_t>{0, 1, 4, 3, 2, 5, 6, 7});  // D of the figure
  CHECK(r.warp_label == std::vector<int>{0, 1});
  CHECK(r.moved == 2);
  CHECK(pure_warps(taken, r.source(), 4) == 2);
}

TEST_CASE("LAM labels, quotas and mixed warps on a worked example") {
  // Warp size 4, R = 3 classes of trip counts {0..3}, {4..7}, {8..11} (equal widths of [0, 11]).
  //   warp 0: 0 1 9 2   -> class 0 (3 of 4), opening at 2
  //   warp 1: 5 6 4 10  -> class 1 (3 of 4), opening at 7
  //   warp 2: 8 3 11 9  -> class 2 (3 of 4), opening at 9
  //   warp 3: 1 7 0 11  -> class 0 has 5 elements: quota 1 is used up -> mixed
  const std::vector<std::uint32_t> trips{0, 1, 9, 2, 5, 6, 4, 10, 8, 3, 11, 9, 1, 7, 0, 11};
  const lam_result r = lam(trips, {.classes = 3, .warp = 4});
  CHECK(r.warp_label == std::vector<int>{0, 1, 2, lam_mixed});
  CHECK(is_bijection(r.destination));
  const auto source = r.source();
  const auto classes = value_classes(trips, 3);
  CHECK(pure_warps(classes, source, 4) == 3);  // every class has exactly one full warp
  // Only what must move moves: 9 and 3 swap, 10 goes to the mixed warp whose 7 fills its opening.
  CHECK(r.moved == 4);
  CHECK(warp_trip_cost(trips, source, 4) < warp_trip_cost(trips, identity(trips.size()), 4));
}

TEST_CASE("LAM gives bijections and no fewer pure warps than the original layout") {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    for (const std::size_t n :
         {std::size_t{0}, std::size_t{31}, std::size_t{1000}, std::size_t{4096}}) {
      const auto values = random_values(n, 1 + seed * 37, seed);
      for (const int classes : {1, 2, 10}) {
        const lam_result r = lam(values, {.classes = classes});
        REQUIRE(is_bijection(r.destination));
        const auto keys = value_classes(values, classes);
        CHECK(pure_warps(keys, r.source()) >= pure_warps(keys, identity(n)));
        std::size_t labelled = 0;
        for (int l : r.warp_label) labelled += l != lam_mixed ? 1 : 0;
        CHECK(pure_warps(keys, r.source()) >= labelled);
      }
    }
  }
}

TEST_CASE(
    "LAM with fill_quotas reaches every class's quota of pure warps; the paper's rule does not") {
  // Random trip counts with 40 % zeros: the majority of nearly every warp is class 0, so the
  // paper's labelling leaves the warps beyond class 0's quota mixed.
  std::mt19937 rng(7);
  for (const int classes : {2, 10, 64}) {
    std::vector<std::uint32_t> v(32 * 500);
    for (auto& x : v) x = rng() % 10 < 4 ? 0 : 1 + rng() % 4096;
    const auto keys = value_classes(v, classes);
    const lam_result paper = lam(v, {.classes = classes, .fill_quotas = false});
    const lam_result filled = lam(v, {.classes = classes});
    REQUIRE(is_bijection(filled.destination));
    REQUIRE(is_bijection(paper.destination));
    std::vector<std::size_t> count(static_cast<std::size_t>(classes), 0);
    for (auto k : keys) ++count[k];
    std::size_t quota = 0;
    for (auto c : count) quota += c / 32;
    CHECK(pure_warps(keys, filled.source()) >= quota);
    CHECK(pure_warps(keys, filled.source()) >= pure_warps(keys, paper.source()));
    if (classes == 10) CHECK(pure_warps(keys, paper.source()) < quota);
    CHECK(warp_trip_cost(v, filled.source()) <= warp_trip_cost(v, paper.source()));
    // lam_source gives the same mapping, offset by base, without allocating per call.
    lam_workspace ws;
    std::vector<index_t> source(v.size());
    for (int rep = 0; rep < 2; ++rep) {
      (void)lam_source(v, {.classes = classes}, ws, source, 1000);
      const auto expected = filled.source();
      bool same = true;
      for (std::size_t t = 0; t < v.size(); ++t) same = same && source[t] == expected[t] + 1000;
      CHECK(same);
    }
  }
}

TEST_CASE("value_classes equals the integer formula (v - min) * R / (max - min + 1)") {
  std::mt19937 rng(3);
  for (const int classes : {1, 3, 10, 32, 33, 1000, 65536}) {
    std::vector<std::uint32_t> v(2000);
    for (auto& x : v) x = static_cast<std::uint32_t>(rng());
    v[0] = 0;
    v[1] = 0xffffffffu;
    const auto c = value_classes(v, classes);
    bool same = true;
    for (std::size_t i = 0; i < v.size(); ++i)
      same = same && c[i] == std::uint64_t{v[i]} * static_cast<std::uint64_t>(classes) /
                                 (std::uint64_t{1} << 32);
    CHECK(same);
  }
}

TEST_CASE("LAM on an already pure layout moves nothing") {
  std::vector<std::uint32_t> v(128);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint32_t>(i / 32) * 100;
  const lam_result r = lam(v, {.classes = 4});
  CHECK(r.moved == 0);
  CHECK(pure_warps(value_classes(v, 4), r.source()) == 4);
}

TEST_CASE("LAM rejects bad arguments by name") {
  const std::vector<std::uint32_t> v{1, 2, 3};
  CHECK_THROWS_WITH_AS((void)lam(v, {.classes = 0}), doctest::Contains("classes"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)lam_on_classes(v, 2, 32), doctest::Contains("class id"),
                       std::invalid_argument);
}

TEST_CASE("regrouping reaches the largest number of pure warps the counts allow") {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    for (const std::size_t n :
         {std::size_t{0}, std::size_t{33}, std::size_t{2000}, std::size_t{8192}}) {
      const auto keys = random_values(n, 1 + seed % 9, seed);
      for (const int warp : {4, 32}) {
        const auto source = regroup(keys, warp);
        REQUIRE(is_bijection(source));
        CHECK(pure_warps(keys, source, warp) >= best_pure_warps(keys, warp));
      }
    }
  }
}

TEST_CASE("regrouping of zhang2011 Figure 4(c) packs the two warps") {
  const std::vector<std::uint32_t> b{0, 0, 6, 0, 0, 2, 4, 1};
  std::vector<std::uint32_t> taken(b.size());
  std::transform(b.begin(), b.end(), taken.begin(), [](auto x) { return x != 0 ? 1u : 0u; });
  const auto source = regroup(taken, 4);
  CHECK(source == std::vector<index_t>{0, 1, 3, 4, 2, 5, 6, 7});
  CHECK(pure_warps(taken, source, 4) == 2);
}

TEST_CASE("trip counts cluster by distance on a log scale (zhang2011 §4.2 example)") {
  // Clusters 0, 100-200, 1000-1300, >10000.
  const std::vector<std::uint32_t> trips{0, 150, 120, 1100, 1250, 20000, 0, 180, 1300, 15000};
  const auto c = cluster_trip_counts(trips, 4);
  CHECK(c == std::vector<std::uint32_t>{0, 1, 1, 2, 2, 3, 0, 1, 2, 3});
  CHECK(cluster_trip_counts(trips, 1) == std::vector<std::uint32_t>(trips.size(), 0));
  // Two conditions and the loop make a three-dimensional path vector.
  const std::vector<std::uint32_t> bits{0, 1, 1, 3, 0, 2, 0, 1, 3, 2};
  const auto keys = path_vector_keys(bits, c, 4);
  CHECK(keys[0] == 0);
  CHECK(keys[3] == 3 * 4 + 2);
  const auto source = regroup(keys, 2);
  CHECK(is_bijection(source));
  CHECK_THROWS_AS((void)path_vector_keys(bits, std::vector<std::uint32_t>(3), 4),
                  std::invalid_argument);
}

TEST_CASE("job swapping reproduces zhang2011 Figure 4(b): four transactions become three") {
  // A[P[tid]], P = {0,5,2,3,2,3,7,6}, segments of 4 elements, warps of 4 threads.
  const std::vector<index_t> p{0, 5, 2, 3, 2, 3, 7, 6};
  const job_swap_arguments args{.element_bytes = 4, .segment_bytes = 16, .warp = 4};
  CHECK(memory_transactions(p, identity(8), 4, 16, 4) == 4);
  const auto q = job_swap(p, args);
  CHECK(is_bijection(q));
  // Category of segment 0 fills one bucket {0,2,3,4}; residuals {5} and {1,6,7} share the other.
  CHECK(q == std::vector<index_t>{0, 2, 3, 4, 1, 6, 7, 5});
  CHECK(memory_transactions(p, q, 4, 16, 4) == 3);
}

TEST_CASE("job swapping on random references: bijective and never more transactions") {
  for (unsigned seed = 1; seed <= 10; ++seed) {
    std::mt19937 rng(seed);
    const std::size_t n = 4096;
    std::vector<index_t> p(n);
    for (auto& x : p) x = rng() % (n / 4);  // many jobs share a segment
    const auto q = job_swap(p, {});
    REQUIRE(is_bijection(q));
    const auto before = memory_transactions(p, identity(n), 4, 32);
    const auto after = memory_transactions(p, q, 4, 32);
    CHECK(after <= before);
    CHECK(after * 2 < before);
  }
}

TEST_CASE("data reordering by duplication makes A[P[tid]] coalesced (zhang2011 Figure 4(a))") {
  const std::vector<float> a{10, 11, 12, 13, 14, 15, 16, 17};
  const std::vector<index_t> p{0, 5, 2, 3, 2, 3, 7, 6};
  std::vector<float> reordered(p.size(), -1.0f);
  reorder<float>(a, p, reordered, 0, 4);
  reorder<float>(a, p, reordered, 4, 8);  // two helper threads, disjoint ranges
  CHECK(reordered == std::vector<float>{10, 15, 12, 13, 12, 13, 17, 16});
  // A'[tid]: one transaction per warp, the minimum.
  CHECK(memory_transactions(identity(8), identity(8), 4, 16, 4) == 2);
  CHECK_THROWS_WITH_AS(reorder<float>(a, std::vector<index_t>{9}, reordered, 0, 1),
                       doctest::Contains("refs"), std::invalid_argument);
  std::vector<float> moved(3);
  relocate<float>(std::vector<float>{1, 2, 3}, std::vector<index_t>{2, 0, 1}, moved, 0, 3);
  CHECK(moved == std::vector<float>{3, 1, 2});
}
