// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host tests of the coarse claims: guided sizes, interleaved layouts, the equal split and the
// counter hand out every task of a range exactly once, at every size up to beyond 2^32 (64-bit
// host arithmetic).
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "microsched/multi_gpu/claim_layout.hpp"
#include "microsched/multi_gpu/claim_plan.hpp"
#include "microsched/multi_gpu/host_claim_counter.hpp"
#include "microsched/multi_gpu/slot_worker.hpp"

using namespace microsched;
using namespace microsched::multi_gpu;

namespace {

//! Sorts `ranges` and checks that they tile [0, count) with no gap and no overlap.
void verify_tiles(std::vector<claimed_range> ranges, task_id count) {
  std::sort(ranges.begin(), ranges.end(),
            [](const claimed_range& a, const claimed_range& b) { return a.first < b.first; });
  task_id covered = 0;
  for (const claimed_range& r : ranges) {
    CAPTURE(r.first);
    CHECK(!r.empty());
    CHECK(r.first == covered);
    covered = r.end();
  }
  CHECK(covered == count);
}

//! `claimants` taking claims from one counter in turn until it is spent.
std::vector<claimed_range> claim_in_turns(task_id count, int claimants, const claim_settings& s,
                                          task_id smallest = 0) {
  host_claim_counter counter;
  if (smallest == 0) smallest = smallest_claim(count, claimants, s);
  std::vector<claimed_range> all;
  std::vector<bool> done(static_cast<std::size_t>(claimants), false);
  for (int left = claimants; left > 0;) {
    for (int c = 0; c < claimants; ++c) {
      if (done[static_cast<std::size_t>(c)]) continue;
      const claimed_range r = take_claim(counter, count, claimants, smallest, s);
      if (r.empty()) {
        done[static_cast<std::size_t>(c)] = true;
        --left;
      } else {
        all.push_back(r);
      }
    }
  }
  return all;
}

//! Interleaved claims of guided sizes.
claim_settings guided_interleaved() {
  claim_settings s;
  s.share_divisor = 2;
  s.granules = 64;
  return s;
}

//! Guided self-scheduling as the contiguous claims had it: first a share of the range, down to
//! 1/64 of a claimant's share.
claim_settings guided() {
  claim_settings s;
  s.interleave = false;
  s.share_divisor = 2;
  s.granules = 64;
  return s;
}

//! Every run of task ids of the claims taken in turns over `layout`, checked to tile the range;
//! their task count summed per claim equals the runs'.
void verify_layout_tiles(task_id count, int claimants, const claim_settings& s) {
  const claim_layout layout = claims_layout(count, claimants, s);
  CAPTURE(layout.shift);
  CAPTURE(layout.period);
  const auto claims =
      claim_in_turns(layout.units(), claimants, s, smallest_units(layout, claimants, s));
  std::vector<claimed_range> runs;
  task_id tasks = 0;
  for (const claimed_range& c : claims) {
    tasks += layout.tasks(c);
    task_id in_runs = 0;
    layout.for_each_run(c, [&](task_id first, task_id n) {
      runs.push_back({first, n});
      in_runs += n;
    });
    CHECK(in_runs == layout.tasks(c));
  }
  CHECK(tasks == count);
  verify_tiles(runs, count);
}

}  // namespace

TEST_CASE("claim sizes shrink from a share of the range to the smallest claim") {
  const claim_settings s = guided();
  const task_id count = task_id{1} << 28;
  const task_id smallest = smallest_claim(count, 4, s);
  CHECK(smallest == (task_id{1} << 20));                           // 2^28 / (4 GPUs x 64 granules)
  CHECK(claim_size(count, 4, smallest, s) == (task_id{1} << 25));  // 2^28 / (4 x 2)
  CHECK(claim_size(3 * smallest, 4, smallest, s) == smallest);
  CHECK(claim_size(smallest + smallest / 2, 4, smallest, s) == smallest + smallest / 2);  // rest
  CHECK(claim_size(0, 4, smallest, s) == 0);
  CHECK(smallest_claim(10, 4, s) == 4096);  // the floor in tasks
  CHECK(claim_size(10, 4, 4096, s) == 10);
  // Every claim but the last is a power of two: few size classes for the automatic schedule.
  const auto claims = claim_in_turns(count, 4, s);
  for (std::size_t i = 0; i + 1 < claims.size(); ++i) CHECK(std::has_single_bit(claims[i].count));
  for (std::size_t i = 1; i < claims.size(); ++i) CHECK(claims[i].count <= claims[i - 1].count);
}

TEST_CASE("claims in turns tile the range exactly once at every size") {
  claim_settings small;
  small.min_tasks = 1;
  for (const task_id count :
       {task_id{0}, task_id{1}, task_id{3}, task_id{4}, task_id{1000}, (task_id{1} << 20) + 7}) {
    for (const int claimants : {1, 2, 3, 4, 8}) {
      for (const claim_settings& s : {claim_settings{}, small, guided(), guided_interleaved()}) {
        CAPTURE(count);
        CAPTURE(claimants);
        CAPTURE(s.interleave);
        verify_tiles(claim_in_turns(count, claimants, s), count);
        verify_layout_tiles(count, claimants, s);
      }
    }
  }
}

TEST_CASE("ranges beyond 2^32 tasks: claims and the equal split in 64-bit arithmetic") {
  const task_id count = (task_id{1} << 40) + 12345;
  const auto claims = claim_in_turns(count, 4, guided());
  verify_tiles(claims, count);
  CHECK(claims.front().count == (task_id{1} << 37));
  verify_layout_tiles(count, 4, claim_settings{});
  verify_layout_tiles(count, 3, guided_interleaved());
  CHECK(claims.size() < 1000);
  std::vector<claimed_range> parts;
  for (int p = 0; p < 3; ++p) parts.push_back(equal_share(count, 3, p));
  verify_tiles(parts, count);
  CHECK(parts[0].count - parts[2].count <= 1);
  const claimed_range last = equal_share(max_range_tasks, 7, 6);
  CHECK(last.end() == max_range_tasks);
  CHECK_THROWS_AS(validate_range(max_range_tasks + 1, 4), std::invalid_argument);
  CHECK_NOTHROW(validate_range(max_range_tasks, max_claimants));
  CHECK_THROWS_AS(validate_range(10, 0), std::invalid_argument);
}

TEST_CASE(
    "the equal split: sizes differ by at most one, fewer tasks than parts leave parts empty") {
  for (const task_id count : {task_id{0}, task_id{1}, task_id{3}, task_id{10}, task_id{1000003}}) {
    for (const int parts : {1, 2, 4, 7}) {
      std::vector<claimed_range> all;
      for (int p = 0; p < parts; ++p) {
        const claimed_range r = equal_share(count, parts, p);
        CHECK(r.count <= count / parts + 1);
        CHECK(r.count >= count / parts);
        if (!r.empty()) all.push_back(r);
      }
      verify_tiles(all, count);
    }
  }
  CHECK_THROWS_AS((void)equal_share(10, 0, 0), std::invalid_argument);
  CHECK_THROWS_AS((void)equal_share(10, 2, 2), std::invalid_argument);
}

TEST_CASE("clip_claim: a counter past the end hands out nothing") {
  CHECK(clip_claim(0, 10, 25) == claimed_range{0, 10});
  CHECK(clip_claim(20, 10, 25) == claimed_range{20, 5});
  CHECK(clip_claim(25, 10, 25).empty());
  CHECK(clip_claim(40, 10, 25).empty());
}

TEST_CASE("threads claiming from one host counter take every task once") {
  claim_settings s;
  s.min_tasks = 1;
  s.granules = 512;
  const task_id count = (task_id{1} << 20) + 7;
  for (const int threads : {2, 4, 8}) {
    host_claim_counter counter;
    const task_id smallest = smallest_claim(count, threads, s);
    std::vector<std::vector<claimed_range>> taken(static_cast<std::size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        for (;;) {
          const claimed_range r = take_claim(counter, count, threads, smallest, s);
          if (r.empty()) return;
          taken[static_cast<std::size_t>(t)].push_back(r);
        }
      });
    }
    for (std::thread& t : pool) t.join();
    std::vector<claimed_range> all;
    for (const auto& mine : taken) all.insert(all.end(), mine.begin(), mine.end());
    verify_tiles(all, count);
    CHECK(counter.read() < count * static_cast<task_id>(threads + 1));
  }
}

TEST_CASE("claim settings out of range are refused") {
  claim_settings s;
  s.in_flight = 0;
  CHECK_THROWS_AS(validate(s), std::invalid_argument);
  s = {};
  s.share_divisor = 0;
  CHECK_THROWS_AS(validate(s), std::invalid_argument);
  s = {};
  s.granules = 0;
  CHECK_THROWS_AS(validate(s), std::invalid_argument);
  s = {};
  s.min_tasks = 0;
  CHECK_THROWS_AS(validate(s), std::invalid_argument);
  CHECK_NOTHROW(validate(claim_settings{}));
}

TEST_CASE("claim streams: one up to the claims in flight") {
  claim_settings s;
  s.streams = 3;
  CHECK_THROWS_AS(validate(s), std::invalid_argument);  // 2 in flight
  s.streams = 0;
  CHECK_THROWS_AS(validate(s), std::invalid_argument);
  s.streams = 1;
  CHECK_NOTHROW(validate(s));
}

TEST_CASE("interleaved claims: equal claims that sample the whole range, one size class") {
  const task_id count = task_id{1} << 28;  // the 16384^2 Julia view
  for (const int claimants : {2, 4}) {
    CAPTURE(claimants);
    const claim_settings s;
    const claim_layout layout = claims_layout(count, claimants, s);
    CHECK(layout.interleaved());
    CHECK(layout.units() == task_id{16} * s.granules * static_cast<task_id>(claimants));
    CHECK(((count / layout.units()) >> layout.shift) == granules_per_residue);
    const task_id smallest = smallest_units(layout, claimants, s);
    const auto claims = claim_in_turns(layout.units(), claimants, s, smallest);
    CHECK(claims.size() == static_cast<std::size_t>(claimants) * s.granules);
    for (const claimed_range& c : claims) {
      CHECK(layout.tasks(c) == count / claims.size());
      // Every claim holds its share of the first eighth: a skew there is spread over all.
      task_id early = 0;
      task_id last_run = 0;
      layout.for_each_run(c, [&](task_id first, task_id n) {
        if (first < count / 8) early += n;
        last_run = first;
      });
      CHECK(early == layout.tasks(c) / 8);
      CHECK(last_run >= count - count / granules_per_residue);
    }
    CHECK(describe_claims(layout, claimants, s).find("equal interleaved claims") == 0);
  }
}

TEST_CASE("interleaved slices map their ids onto the runs of the claim, in order") {
  for (const task_id count : {task_id{1}, task_id{5}, task_id{1000}, (task_id{1} << 20) + 7}) {
    for (const int claimants : {1, 3, 4}) {
      CAPTURE(count);
      CAPTURE(claimants);
      const claim_settings s;
      const claim_layout layout = claims_layout(count, claimants, s);
      const auto claims =
          claim_in_turns(layout.units(), claimants, s, smallest_units(layout, claimants, s));
      for (const claimed_range& c : claims) {
        const task_slice slice = layout.slice(c);
        task_id local = 0;
        bool same = true;
        layout.for_each_run(c, [&](task_id first, task_id n) {
          for (task_id t = first; t < first + n; ++t) same = same && slice(local++) == t;
        });
        CHECK(same);
        CHECK(local == slice.size());
      }
    }
  }
}

TEST_CASE("contiguous layout: a unit is a task") {
  claim_settings s;
  s.interleave = false;
  const claim_layout layout = claims_layout(1000, 4, s);
  CHECK(!layout.interleaved());
  CHECK(layout.units() == 1000);
  CHECK(layout.tasks({10, 20}) == 20);
  CHECK(claims_layout(0, 4, claim_settings{}).units() == 0);
}

TEST_CASE("slot workers: each posted job runs once, on the worker's thread, awake or asleep") {
  std::atomic<int> ran{0};
  std::atomic<bool> other_thread{true};
  const auto caller = std::this_thread::get_id();
  {
    std::vector<std::unique_ptr<multi_gpu::detail::slot_worker>> workers;
    for (int w = 0; w < 3; ++w)
      workers.push_back(std::make_unique<multi_gpu::detail::slot_worker>());
    for (int round = 0; round < 50; ++round) {
      std::atomic<int> left{3};
      for (auto& w : workers) {
        w->post([&] {
          if (std::this_thread::get_id() == caller) other_thread = false;
          ++ran;
          --left;
        });
      }
      while (left.load() > 0) std::this_thread::yield();
      // Every tenth round waits past the awake time, so the next post wakes a sleeping worker.
      if (round % 10 == 9) {
        std::this_thread::sleep_for(multi_gpu::detail::slot_worker::stay_awake * 2);
      }
    }
  }  // the workers end here, idle
  CHECK(ran.load() == 150);
  CHECK(other_thread.load());
  multi_gpu::detail::slot_worker never_used;  // ends without a job
}
