// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// User-supplied key and reference functions (key_function.hpp): the algorithms fed through a
// function give the same mappings as on precomputed keys; a throwing function propagates.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "microsched/pipeline/chunk_pipeline.hpp"
#include "microsched/pipeline/job_swap.hpp"
#include "microsched/pipeline/key_function.hpp"
#include "microsched/pipeline/lam.hpp"
#include "microsched/pipeline/regroup.hpp"
#include "microsched/pipeline/reorder.hpp"

using namespace microsched::pipeline;

namespace {

//! gafort-like inputs: whether a child has a crossover, and the length of its segment.
struct population {
  std::vector<std::uint8_t> cross;
  std::vector<std::uint32_t> length;
};

population make_population(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  population p{std::vector<std::uint8_t>(n), std::vector<std::uint32_t>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    p.cross[i] = static_cast<std::uint8_t>(rng() % 10 < 6);
    p.length[i] = 1 + rng() % 512;
  }
  return p;
}

}  // namespace

TEST_CASE("key functions: LAM, regrouping and job swapping equal the precomputed-key results") {
  const std::size_t n = 5000 + 13;
  const population pop = make_population(n, 11);
  std::vector<std::uint32_t> precomputed(n);
  for (std::size_t i = 0; i < n; ++i) precomputed[i] = pop.cross[i] ? pop.length[i] : 0u;
  const key_function per_element =
      key_function::per_element([&](std::size_t i) { return pop.cross[i] ? pop.length[i] : 0u; });
  const key_function per_range =
      key_function::per_range([&](std::size_t b, std::span<std::uint32_t> out) {
        for (std::size_t k = 0; k < out.size(); ++k)
          out[k] = pop.cross[b + k] ? pop.length[b + k] : 0u;
      });
  const key_function array = key_function::array(precomputed);
  for (const key_function* f : {&per_element, &per_range, &array}) {
    for (const auto& [begin, end] :
         {std::pair<std::size_t, std::size_t>{0, n}, {96, 4000}, {4000, n}}) {
      const std::span<const std::uint32_t> keys(precomputed.data() + begin, end - begin);
      CHECK(f->keys(begin, end) == std::vector<std::uint32_t>(keys.begin(), keys.end()));
      lam_workspace workspace, reference_workspace;
      std::vector<index_t> source(end - begin), expected(end - begin);
      const lam_arguments args{.classes = 10};
      const std::size_t moved = lam_source(*f, begin, end, args, workspace, source);
      CHECK(moved ==
            lam_source(keys, args, reference_workspace, expected, static_cast<index_t>(begin)));
      CHECK(source == expected);
      std::vector<index_t> local(source.size());
      for (std::size_t t = 0; t < source.size(); ++t)
        local[t] = source[t] - static_cast<index_t>(begin);
      CHECK(is_bijection(local));
      CHECK(regroup(*f, begin, end) == regroup(keys));
      CHECK(job_swap(*f, begin, end) == job_swap(keys));
    }
  }
}

TEST_CASE("key functions: data reordering with computed references") {
  // A reference computed from two arrays: row[i] * width + column[i].
  const std::size_t width = 64, n = 1000;
  std::mt19937 rng(5);
  std::vector<std::uint32_t> row(n), column(n), a(width * 40), refs(n);
  for (auto& v : a) v = rng();
  for (std::size_t i = 0; i < n; ++i) {
    row[i] = rng() % 40;
    column[i] = rng() % width;
    refs[i] = row[i] * static_cast<std::uint32_t>(width) + column[i];
  }
  const key_function computed = key_function::per_element(
      [&](std::size_t i) { return row[i] * static_cast<std::uint32_t>(width) + column[i]; });
  std::vector<std::uint32_t> out(n), expected(n), scratch;
  reorder<std::uint32_t>(a, computed, out, 100, 900, scratch);
  reorder<std::uint32_t>(a, refs, expected, 100, 900);
  CHECK(out == expected);
  const key_function outside = key_function::per_element([](std::size_t) { return 1u << 30; });
  CHECK_THROWS_AS(reorder<std::uint32_t>(a, outside, out, 0, 10, scratch), std::invalid_argument);
}

TEST_CASE(
    "key functions: what the user's function throws propagates; empty functions are rejected") {
  const key_function throwing = key_function::per_element([](std::size_t i) -> std::uint32_t {
    if (i == 70) throw std::runtime_error("no key for element 70");
    return 0;
  });
  lam_workspace workspace;
  std::vector<index_t> source(128);
  CHECK_THROWS_WITH_AS(lam_source(throwing, 0, 128, {}, workspace, source), "no key for element 70",
                       std::runtime_error);
  CHECK_NOTHROW(lam_source(throwing, 71, 199, {}, workspace, source));
  CHECK_THROWS_AS((void)regroup(throwing, 0, 100), std::runtime_error);
  CHECK_THROWS_AS((void)key_function::per_element({}), std::invalid_argument);
  CHECK_THROWS_AS((void)key_function::per_range({}), std::invalid_argument);
  CHECK_THROWS_AS(key_function{}.fill(0, source), std::invalid_argument);
  const std::vector<std::uint32_t> three{1, 2, 3};
  CHECK_THROWS_AS((void)key_function::array(three).keys(2, 4), std::invalid_argument);
}

TEST_CASE("documentation example: a branch key computed from two inputs") {
  const std::size_t n = 4096;
  const population pop = make_population(n, 2);
  std::vector<index_t> staging(n);
  // example-begin key-function
  // gafort-like: the loop's trip count is no input array; it comes from two of them.
  const key_function trips =
      key_function::per_element([&](std::size_t i) { return pop.cross[i] ? pop.length[i] : 0u; });
  // The program's transform(job), on helper threads: LAM over the keys of the job's range,
  // writing the mapping the redirected kernel reads (thread t does element staging[t]). If the
  // function throws, the pipeline reports it and runs the original kernel for that chunk.
  auto transform = [&](const transform_job& job) -> transform_outcome {
    thread_local lam_workspace workspace;  // reused by each helper thread: no allocation
    const std::span<index_t> source(staging.data() + job.begin, job.end - job.begin);
    (void)lam_source(trips, job.begin, job.end, {.classes = 10}, workspace, source);
    return {};
  };
  // example-end key-function
  (void)transform({.begin = 0, .end = n / 2});
  (void)transform({.begin = n / 2, .end = n});
  std::vector<std::uint32_t> precomputed(n);
  for (std::size_t i = 0; i < n; ++i) precomputed[i] = pop.cross[i] ? pop.length[i] : 0u;
  lam_workspace workspace;
  std::vector<index_t> expected(n);
  (void)lam_source(std::span<const std::uint32_t>(precomputed.data(), n / 2), {.classes = 10},
                   workspace, std::span<index_t>(expected.data(), n / 2), 0);
  (void)lam_source(std::span<const std::uint32_t>(precomputed.data() + n / 2, n / 2),
                   {.classes = 10}, workspace, std::span<index_t>(expected.data() + n / 2, n / 2),
                   static_cast<index_t>(n / 2));
  CHECK(staging == expected);
  CHECK(is_bijection(staging));
}
