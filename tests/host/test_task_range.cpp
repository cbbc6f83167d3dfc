// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <doctest/doctest.h>

#include <random>
#include <set>
#include <vector>

#include "microsched/pool/lane_run.hpp"
#include "microsched/pool/task_range.hpp"

using namespace microsched;

TEST_CASE("clamp_grab keeps only what lies below the total") {
  CHECK(clamp_grab(0, 10, 5).size() == 5);
  CHECK(clamp_grab(5, 10, 5).empty());
  CHECK(clamp_grab(100, 10, 5).empty());
  CHECK(clamp_grab(3, 2, 10).size() == 2);
  const task_id big = (task_id{1} << 32) + 5;
  const task_range r = clamp_grab((task_id{1} << 32) - 3, 1000, big);
  CHECK(r.next == (task_id{1} << 32) - 3);
  CHECK(r.end == big);
  CHECK(r.size() == 8);
}

TEST_CASE("local block ranges tile the tasks exactly once") {
  for (task_id total :
       {task_id{0}, task_id{1}, task_id{31}, task_id{32}, task_id{33}, task_id{1000}}) {
    for (task_id chunk :
         {task_id{1}, task_id{2}, task_id{7}, task_id{32}, task_id{1000}, task_id{5000}}) {
      const task_id blocks = total / chunk + (total % chunk != 0);
      task_id covered = 0;
      for (task_id b = 0; b < blocks; ++b) {
        const task_range r = local_block_range(b, chunk, total);
        CHECK(r.next == covered);
        CHECK(!r.empty());
        covered = r.end;
      }
      CHECK(covered == total);
    }
  }
}

TEST_CASE("local block range beyond 2^32 tasks") {
  const task_id total = (task_id{1} << 32) + 5;
  const task_id chunk = 1024;
  const task_id last_block = total / chunk;  // the partial block
  const task_range r = local_block_range(last_block, chunk, total);
  CHECK(r.next == last_block * chunk);
  CHECK(r.end == total);
  CHECK(r.size() == 5);
}

// Simulates Global strategy refills: warps of lanes grabbing private chunks with one
// warp-aggregated atomic, until the global pool is drained; every task must be handed out once.
TEST_CASE("private chunks from warp-aggregated grabs hand out every task once") {
  std::mt19937 rng(99);
  for (task_id total :
       {task_id{0}, task_id{1}, task_id{31}, task_id{32}, task_id{33}, task_id{777}}) {
    for (task_id chunk : {task_id{1}, task_id{2}, task_id{7}, task_id{32}, task_id{1000}}) {
      std::vector<int> seen(total, 0);
      task_id counter = 0;
      while (counter < total) {
        const int lanes = 1 + static_cast<int>(rng() % 32);
        const task_id base = counter;
        counter += static_cast<task_id>(lanes) * chunk;
        for (int rank = 0; rank < lanes; ++rank) {
          const task_range r = private_chunk(base, rank, chunk, total);
          for (task_id t = r.next; t < r.end; ++t) ++seen[t];
        }
      }
      for (task_id t = 0; t < total; ++t) REQUIRE(seen[t] == 1);
    }
  }
}

// Simulates Hybrid refills: a warp-local pool, random idle counts, grabs of shortfall + chunk.
TEST_CASE("hybrid refills hand out every task once and keep the local pool contiguous") {
  std::mt19937 rng(7);
  for (task_id total :
       {task_id{0}, task_id{1}, task_id{31}, task_id{32}, task_id{33}, task_id{1234}}) {
    for (task_id chunk : {task_id{1}, task_id{2}, task_id{7}, task_id{32}, task_id{1000}}) {
      std::vector<int> seen(total, 0);
      task_id counter = 0;
      task_range local{};
      bool drained = false;
      int rounds = 0;
      while (!(drained && local.empty()) && rounds++ < 100000) {
        const int need = 1 + static_cast<int>(rng() % 32);
        task_range grabbed{};
        const task_id grab = drained ? 0 : hybrid_grab_size(local, need, chunk);
        if (grab > 0) {
          grabbed = clamp_grab(counter, grab, total);
          counter += grab;
          drained = grabbed.size() < grab;
        }
        int given = 0;
        for (int rank = 0; rank < need; ++rank) {
          task_id id = 0;
          if (hybrid_pick(local, grabbed, rank, id)) {
            REQUIRE(id < total);
            ++seen[id];
            ++given;
          }
        }
        const task_range local_before = local;
        const task_range after = hybrid_after(local, grabbed, need);
        CHECK(after.size() + static_cast<task_id>(given) == local.size() + grabbed.size());
        local = after;
        if (hybrid_grab_size(local_before, need, chunk) == 0) CHECK(given == need);
      }
      for (task_id t = 0; t < total; ++t) REQUIRE(seen[t] == 1);
    }
  }
}

TEST_CASE("hybrid grab size is zero when the local pool covers the idle lanes") {
  CHECK(hybrid_grab_size({10, 20}, 10, 32) == 0);
  CHECK(hybrid_grab_size({10, 20}, 11, 32) == 33);
  CHECK(hybrid_grab_size({0, 0}, 32, 1) == 33);
}

TEST_CASE("stream: lanes taking from the warp's range in ballots cover it exactly once") {
  std::mt19937 rng(7);
  for (const task_id size : {task_id{0}, task_id{1}, task_id{31}, task_id{33}, task_id{1000}}) {
    const task_id first = 5;
    task_id next = first;  // every lane's copy: take_in_order keeps them equal
    const task_id end = first + size;
    std::vector<int> seen(static_cast<std::size_t>(end + 1), 0);
    int past_end = 0;
    for (int ballot = 0; ballot < 400; ++ballot) {
      const unsigned takers = static_cast<unsigned>(rng());
      task_id after = next;
      for (unsigned lane = 0; lane < 32; ++lane) {
        task_id copy = next;
        const task_id t = take_in_order(copy, end, takers, lane);
        after = copy;
        if (((takers >> lane) & 1u) == 0) continue;
        if (t < end) {
          ++seen[t];
        } else {
          CHECK(t == end);
          ++past_end;
        }
      }
      next = after;
    }
    CHECK(next == end);
    for (task_id t = 0; t < end; ++t) {
      CAPTURE(t);
      CHECK(seen[t] == (t >= first ? 1 : 0));
    }
    CHECK(past_end > 0);  // the ballots outlast the range: later takers get none
  }
  // Lanes take in lane order: the lowest taker first.
  task_id next = 10;
  CHECK(take_in_order(next, 100, 0b1010u, 1) == 10);
  next = 10;
  CHECK(take_in_order(next, 100, 0b1010u, 3) == 11);
  CHECK(next == 12);
}

TEST_CASE("a warp range shrinks as the pool drains") {
  const task_id resident = 132 * 1024;
  CHECK(stream_run_length(task_id{1} << 24, 0, resident, 16) == 16);  // 62 per lane: capped
  CHECK(stream_run_length(task_id{1} << 24, (task_id{1} << 24) - 4 * resident, resident, 16) == 2);
  CHECK(stream_run_length(1000, 999, resident, 16) == 1);      // the end: single tasks
  CHECK(stream_run_length(1000, 5000, resident, 16) == 1);     // counter past the end
  CHECK(stream_run_length(task_id{1} << 40, 0, 0, 16) == 16);  // no lanes known: the cap
  CHECK(stream_run_length(task_id{1} << 40, 0, resident, 1) == 1);
}
