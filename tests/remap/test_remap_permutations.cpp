// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host tests (CI, no GPU): the remap permutations as pure functions.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "microsched/remap/reference.hpp"

using namespace microsched;
using namespace microsched::remap;

namespace {

constexpr unsigned block_sizes[] = {32, 61, 128, 256, 1024};
constexpr unsigned path_counts[] = {2, 3, 4, 8};
constexpr unsigned neighbouring_factors[] = {4, 16, 64};

//! Random paths: i.i.d. with skew (some paths rare), or a block-uniform or warp-aligned case.
std::vector<unsigned> random_paths(std::mt19937& rng, unsigned threads, unsigned num_paths,
                                   int kind) {
  std::vector<unsigned> paths(threads);
  std::discrete_distribution<unsigned> skewed(
      {1.0, 1.0, 0.2, 3.0, 0.05, 1.0, 1.0, 2.0});  // first num_paths weights are used
  std::uniform_int_distribution<unsigned> uniform(0, num_paths - 1);
  const unsigned constant = uniform(rng);
  for (unsigned t = 0; t < threads; ++t) {
    switch (kind) {
      case 0:
        paths[t] = uniform(rng);
        break;
      case 1:
        paths[t] = std::min(skewed(rng), num_paths - 1);
        break;
      case 2:
        paths[t] = constant;
        break;  // uniform block
      default:
        paths[t] = (t / warp_size) % num_paths;
        break;  // already warp-pure
    }
  }
  return paths;
}

//! Mixed warps of the best layout the counts allow: groups contiguous, in path order.
unsigned mixed_warps_allowed(std::span<const unsigned> paths, unsigned num_paths) {
  std::vector<unsigned> sorted(paths.begin(), paths.end());
  std::stable_sort(sorted.begin(), sorted.end());
  (void)num_paths;
  return mixed_warps(sorted);
}

//! Within every path, threads coming from one original warp keep their lane order.
bool is_warp_stable(const remap_table& table) {
  for (std::size_t a = 0; a < table.id.size(); ++a) {
    for (std::size_t b = a + 1; b < table.id.size(); ++b) {
      if (table.path[a] == table.path[b] && table.id[a] / warp_size == table.id[b] / warp_size &&
          table.id[a] > table.id[b]) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

TEST_CASE("nth_set_bit finds every set bit of random masks") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    const unsigned mask = trial == 0 ? full_mask : static_cast<unsigned>(rng());
    unsigned n = 0;
    for (unsigned bit = 0; bit < 32; ++bit) {
      if (mask >> bit & 1u) CHECK(nth_set_bit(mask, n++) == bit);
    }
  }
}

TEST_CASE("warp shapes of blocks that are not multiples of 32") {
  CHECK(warps_in_block(61) == 2);
  CHECK(lanes_in_warp(61, 1) == 29);
  CHECK(warp_lanes(61, 1) == 0x1fffffffu);
  CHECK(warp_lanes(64, 1) == full_mask);
  CHECK(warps_in_block(1) == 1);
  CHECK(warp_lanes(1, 0) == 1u);
}

TEST_CASE("DGI shared-memory cost matches lin2018: 4 bytes per path and neighbourhood") {
  CHECK(dgi_shape{256, 4, 16}.shared_bytes() == 4 * 4 * 16);
  CHECK(dgi_shape{256, 4, 64}.shared_bytes() == 4 * 4 * 8);  // N = 64: two words per hood
  CHECK(dgi_shape{61, 3, 16}.pieces() == 4);
  CHECK(dgi_shape{1024, 2, 4}.neighbourhoods() == 256);
  CHECK(dgi_shape{256, 2, 64}.neighbourhoods() == 4);
  CHECK_FALSE(dgi_shape{256, 2, 12}.valid_neighbouring());
}

TEST_CASE("DGI: stable bijection, paths follow data, warps pure wherever the counts allow") {
  std::mt19937 rng(2024);
  for (const unsigned threads : block_sizes) {
    for (const unsigned num_paths : path_counts) {
      for (const unsigned n : neighbouring_factors) {
        for (int trial = 0; trial < 24; ++trial) {
          CAPTURE(threads);
          CAPTURE(num_paths);
          CAPTURE(n);
          CAPTURE(trial);
          const auto paths = random_paths(rng, threads, num_paths, trial % 4);
          const remap_table table = data_group_index_reference(paths, num_paths, n);
          REQUIRE(is_bijection(table.id));
          REQUIRE(paths_follow_data(table, paths));
          const bool uniform = trial % 4 == 2;
          if (!uniform) {
            const remap_table expected = stable_reference(paths, num_paths);
            CHECK(table.id == expected.id);  // DGI is exactly the stable remap
            CHECK(is_stable(table, num_paths));
            CHECK(mixed_warps(table.path) == mixed_warps_allowed(paths, num_paths));
            CHECK(mixed_warps(table.path) <= num_paths - 1);
          } else {
            std::vector<unsigned> identity(threads);
            std::iota(identity.begin(), identity.end(), 0u);
            CHECK(table.id == identity);  // a uniform block is left alone
          }
        }
      }
    }
  }
}

TEST_CASE("HoT: bijection, warp-stable, pure wherever the counts allow, for any service order") {
  std::mt19937 rng(99);
  for (const unsigned threads : block_sizes) {
    for (int trial = 0; trial < 60; ++trial) {
      CAPTURE(threads);
      CAPTURE(trial);
      const auto cond = random_paths(rng, threads, 2, trial % 4);
      std::vector<unsigned> order(warps_in_block(threads));
      std::iota(order.begin(), order.end(), 0u);
      const bool canonical = trial % 3 == 0;
      if (!canonical) std::shuffle(order.begin(), order.end(), rng);
      const remap_table table = head_or_tail_reference(cond, order);
      REQUIRE(is_bijection(table.id));
      REQUIRE(paths_follow_data(table, cond));
      CHECK(is_warp_stable(table));
      // heads first: path 1 on [0, heads), path 0 after; at most one mixed warp
      const auto heads = static_cast<unsigned>(std::count(cond.begin(), cond.end(), 1u));
      if (heads != 0 && heads != threads) {
        for (unsigned t = 0; t < threads; ++t) CHECK(table.path[t] == (t < heads ? 1u : 0u));
        CHECK(mixed_warps(table.path) == (heads % warp_size == 0 ? 0u : 1u));
      }
      if (canonical && heads != 0 && heads != threads) {
        CHECK(is_stable(table, 2));  // warps served in order: fully stable
        std::vector<unsigned> flipped(cond.size());
        for (std::size_t i = 0; i < cond.size(); ++i) flipped[i] = 1u - cond[i];
        CHECK(table.id == stable_reference(flipped, 2).id);  // heads (path 1) first
      }
    }
  }
}

TEST_CASE("HoT ticket packs head and tail counts into one word") {
  const unsigned ticket = hot_ticket(17, 300);
  CHECK(hot_ticket_heads(ticket) == 17);
  CHECK(hot_ticket_tails(ticket) == 300);
  CHECK(hot_ticket(1024, 1024) == (1024u | 1024u << 16));  // no overflow at 1024 threads
  CHECK(hot_slot(true, hot_ticket(5, 9), 2, 40) == 7);
  CHECK(hot_slot(false, hot_ticket(5, 9), 2, 40) == 51);
}
