// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Vote and switch as pure functions (vote.hpp): exhaustive over small warps and pools, then random
// 32-lane masks. A simulated warp and pool carry context ids through every plan: no context is
// lost or duplicated, every lane that runs the chosen path holds a context needing it, and a lane
// is left without a fitting context only when the pool has none left for that path.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "microsched/schedule/schedule_arguments.hpp"
#include "microsched/switching/pool_fit.hpp"
#include "microsched/switching/vote.hpp"

using namespace microsched;
using namespace microsched::switching;

namespace {

enum class lane_kind { empty, then_, else_, elsewhere };

struct context_ref {
  int id = -1;
  bool need_then = false;
};

struct simulated_warp {
  std::vector<lane_kind> kinds;                         // (lane)
  std::vector<context_ref> attached;                    // (lane)
  std::vector<int> slots;                               // (slot) -> context id, -1 free
  std::vector<bool> slot_need_then;                     // (slot)
  std::vector<int> then_stack, else_stack, free_stack;  // slot indices, top at back
};

simulated_warp make_warp(const std::vector<lane_kind>& kinds, int then_parked, int else_parked,
                         int free_slots) {
  simulated_warp w;
  w.kinds = kinds;
  int next_id = 0;
  for (auto k : kinds) {
    context_ref c;
    if (k != lane_kind::empty) c = {next_id++, k == lane_kind::then_};
    w.attached.push_back(c);
  }
  const int capacity = then_parked + else_parked + free_slots;
  w.slots.assign(capacity, -1);
  w.slot_need_then.assign(capacity, false);
  int s = 0;
  for (int i = 0; i < then_parked; ++i, ++s) {
    w.slots[s] = next_id++;
    w.slot_need_then[s] = true;
    w.then_stack.push_back(s);
  }
  for (int i = 0; i < else_parked; ++i, ++s) {
    w.slots[s] = next_id++;
    w.else_stack.push_back(s);
  }
  for (; s < capacity; ++s) w.free_stack.push_back(s);
  return w;
}

branch_masks masks_of(const simulated_warp& w) {
  branch_masks m;
  for (unsigned lane = 0; lane < w.kinds.size(); ++lane) {
    const unsigned bit = 1u << lane;
    if (w.kinds[lane] == lane_kind::then_ || w.kinds[lane] == lane_kind::else_) m.at_branch |= bit;
    if (w.kinds[lane] == lane_kind::then_) m.want_then |= bit;
    if (w.kinds[lane] == lane_kind::empty) m.empty |= bit;
  }
  return m;
}

std::vector<int> all_ids(const simulated_warp& w) {
  std::vector<int> ids;
  for (const auto& c : w.attached) {
    if (c.id >= 0) ids.push_back(c.id);
  }
  for (int id : w.slots) {
    if (id >= 0) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

//! The vote's path, or the forced one; checks that the vote picks the path more contexts need.
bool checked_path(const branch_masks& m, const pool_counts& counts, bool forced_path,
                  bool use_vote) {
  const bool path = use_vote ? choose_path(m, counts) : forced_path;
  if (use_vote) {
    const int need_then = popcount(m.want_then) + counts.then_parked;
    const int need_else = popcount(m.at_branch & ~m.want_then) + counts.else_parked;
    if (need_then != need_else) CHECK(path == (need_then > need_else));
  }
  return path;
}

//! One switch plan applied to a simulated warp lane by lane, checking each lane's step. Reads
//! before writes, as on the device (lanes touch disjoint entries): the stacks after the switch
//! are built aside and stored by finish().
struct applied_switch {
  simulated_warp& w;
  const switch_plan& plan;
  const bool path;
  std::vector<int>& take;  //!< the stack of the chosen path
  std::vector<int>& park;  //!< the other path's stack
  std::vector<int> new_take, new_park, new_free;
  std::vector<bool> parked_lane;

  applied_switch(simulated_warp& warp, const switch_plan& p, bool then_path)
      : w(warp),
        plan(p),
        path(then_path),
        take(then_path ? warp.then_stack : warp.else_stack),
        park(then_path ? warp.else_stack : warp.then_stack),
        new_take(take.begin(), take.begin() + plan.path_after()),
        new_park(park),
        new_free(warp.free_stack),
        parked_lane(warp.kinds.size(), false) {
    new_park.resize(plan.other_after(), -1);
    new_free.resize(std::max<int>(plan.free_after(), static_cast<int>(w.free_stack.size())), -1);
  }

  //! A mover trades its context for a parked one that needs the path.
  void swap(const lane_plan& l, context_ref& mine) {
    REQUIRE(l.load_index >= 0);
    REQUIRE(l.load_index < static_cast<int>(take.size()));
    REQUIRE(l.push_index >= static_cast<int>(park.size()));
    REQUIRE(l.push_index < plan.other_after());
    const int s = take[l.load_index];
    CHECK(l.load_index >= plan.path_after());
    const context_ref loaded{w.slots[s], w.slot_need_then[s]};
    CHECK(mine.need_then != path);
    w.slots[s] = mine.id;
    w.slot_need_then[s] = mine.need_then;
    CHECK(new_park[l.push_index] == -1);
    new_park[l.push_index] = s;
    mine = loaded;
    CHECK(mine.need_then == path);
  }

  //! A mover with no parked context to take stores its own in a free slot.
  void store(const lane_plan& l, context_ref& mine) {
    REQUIRE(l.free_index >= 0);
    REQUIRE(l.free_index < static_cast<int>(w.free_stack.size()));
    CHECK(l.free_index >= plan.free_after());
    const int s = w.free_stack[l.free_index];
    CHECK(w.slots[s] == -1);
    w.slots[s] = mine.id;
    w.slot_need_then[s] = mine.need_then;
    CHECK(new_park[l.push_index] == -1);
    new_park[l.push_index] = s;
    mine = {};
  }

  //! An empty lane loads a parked context that needs the path and frees its slot.
  void fill(const lane_plan& l, context_ref& mine) {
    CHECK(mine.id == -1);
    REQUIRE(l.load_index >= plan.path_after());
    REQUIRE(l.load_index < static_cast<int>(take.size()));
    const int s = take[l.load_index];
    mine = {w.slots[s], w.slot_need_then[s]};
    CHECK(mine.need_then == path);
    w.slots[s] = -1;
    REQUIRE(l.free_index >= static_cast<int>(w.free_stack.size()) - plan.stores);
    REQUIRE(l.free_index < plan.free_after());
    CHECK(new_free[l.free_index] == -1);
    new_free[l.free_index] = s;
  }

  //! Checks and applies the step of lane `lane`.
  void apply(unsigned lane, const lane_plan& l) {
    context_ref& mine = w.attached[lane];
    switch (l.action) {
      case lane_action::run:
        REQUIRE(mine.id >= 0);
        CHECK(mine.need_then == path);
        break;
      case lane_action::swap:
        swap(l, mine);
        break;
      case lane_action::store:
        store(l, mine);
        break;
      case lane_action::park:
        CHECK(mine.id >= 0);
        CHECK(mine.need_then != path);
        parked_lane[lane] = true;
        break;
      case lane_action::fill:
        fill(l, mine);
        break;
      case lane_action::idle:
        CHECK((w.kinds[lane] == lane_kind::empty || w.kinds[lane] == lane_kind::elsewhere));
        break;
    }
  }

  //! Stores the stacks built aside.
  void finish() {
    new_free.resize(plan.free_after());
    take = new_take;
    park = new_park;
    w.free_stack = new_free;
  }
};

//! Stacks: every entry set, slots distinct, parked contexts need their stack's path.
void check_stacks(const simulated_warp& w, int capacity) {
  std::vector<int> seen;
  for (int s : w.then_stack) {
    REQUIRE(s >= 0);
    CHECK(w.slots[s] >= 0);
    CHECK(w.slot_need_then[s]);
    seen.push_back(s);
  }
  for (int s : w.else_stack) {
    REQUIRE(s >= 0);
    CHECK(w.slots[s] >= 0);
    CHECK_FALSE(w.slot_need_then[s]);
    seen.push_back(s);
  }
  for (int s : w.free_stack) {
    REQUIRE(s >= 0);
    CHECK(w.slots[s] == -1);
    seen.push_back(s);
  }
  std::sort(seen.begin(), seen.end());
  CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
  CHECK(static_cast<int>(seen.size()) == capacity);
}

//! Runs one vote and switch on the simulated warp and checks every property.
void verify_switch(simulated_warp w, bool forced_path, bool use_vote) {
  const branch_masks m = masks_of(w);
  const pool_counts counts{static_cast<int>(w.then_stack.size()),
                           static_cast<int>(w.else_stack.size()),
                           static_cast<int>(w.free_stack.size())};
  const bool path = checked_path(m, counts, forced_path, use_vote);
  const switch_plan plan = plan_switch(m, counts, path);
  const auto before = all_ids(w);
  const int capacity = static_cast<int>(w.slots.size());

  std::vector<lane_plan> plans;
  for (unsigned lane = 0; lane < w.kinds.size(); ++lane) plans.push_back(plan_lane(plan, lane));
  applied_switch applied(w, plan, path);
  for (unsigned lane = 0; lane < w.kinds.size(); ++lane) applied.apply(lane, plans[lane]);
  applied.finish();

  // No context lost or duplicated.
  const auto after = all_ids(w);
  CHECK(after == before);
  check_stacks(w, capacity);
  // A mover parks only when the pool had neither a fitting context nor a free slot; an empty
  // lane stays empty only when no fitting context is left.
  const std::vector<int>& take = applied.take;
  const bool any_parked = std::find(applied.parked_lane.begin(), applied.parked_lane.end(), true) !=
                          applied.parked_lane.end();
  if (any_parked) {
    CHECK(take.empty());
    CHECK(w.free_stack.empty());
  }
  for (unsigned lane = 0; lane < w.kinds.size(); ++lane) {
    if (w.kinds[lane] == lane_kind::empty && w.attached[lane].id < 0 &&
        plans[lane].action == lane_action::idle) {
      CHECK(take.empty());
    }
  }
}

}  // namespace

TEST_CASE("vote and switch: exhaustive over 4 lanes, small pools, both paths and the vote") {
  const lane_kind kinds[] = {lane_kind::empty, lane_kind::then_, lane_kind::else_,
                             lane_kind::elsewhere};
  int cases = 0;
  for (int code = 0; code < 256; ++code) {
    std::vector<lane_kind> lanes;
    for (int lane = 0, c = code; lane < 4; ++lane, c /= 4) lanes.push_back(kinds[c % 4]);
    for (int then_parked = 0; then_parked <= 3; ++then_parked) {
      for (int else_parked = 0; else_parked <= 3; ++else_parked) {
        for (int free_slots = 0; free_slots <= 3; ++free_slots) {
          const auto w = make_warp(lanes, then_parked, else_parked, free_slots);
          verify_switch(w, true, false);
          verify_switch(w, false, false);
          verify_switch(w, false, true);
          cases += 3;
        }
      }
    }
  }
  CHECK(cases == 256 * 64 * 3);
}

TEST_CASE("vote and switch: random 32-lane masks and pools up to 160 contexts") {
  std::mt19937 rng(20120301);
  for (int trial = 0; trial < 4000; ++trial) {
    std::vector<lane_kind> lanes(32);
    const int bias = static_cast<int>(rng() % 100);
    for (auto& k : lanes) {
      const int r = static_cast<int>(rng() % 100);
      k = r < 15 ? lane_kind::empty
                 : (r < 25 ? lane_kind::elsewhere
                           : (static_cast<int>(rng() % 100) < bias ? lane_kind::then_
                                                                   : lane_kind::else_));
    }
    const int capacity = 1 + static_cast<int>(rng() % 160);
    const int then_parked = static_cast<int>(rng() % (capacity + 1));
    const int else_parked = static_cast<int>(rng() % (capacity - then_parked + 1));
    const auto w = make_warp(lanes, then_parked, else_parked, capacity - then_parked - else_parked);
    verify_switch(w, (rng() & 1u) != 0, (rng() & 1u) != 0);
  }
}

TEST_CASE("consensus counts the pool: parked contexts outvote the attached lanes") {
  branch_masks m;
  m.at_branch = 0xffffffffu;
  m.want_then = 0x1u;  // 1 lane then, 31 else
  CHECK_FALSE(choose_path(m, {0, 0, 64}));
  CHECK(choose_path(m, {31, 0, 33}));        // 32 then against 31 else
  CHECK_FALSE(choose_path(m, {30, 0, 34}));  // tie 31:31 goes to the attached majority
  m.want_then = 0xffffu;                     // 16:16 attached, empty pool: else
  CHECK_FALSE(choose_path(m, {0, 0, 8}));
  // Contexts parked before another branch do not vote.
  m.at_branch = 0x0000ffffu;
  m.want_then = 0x0000ffffu;
  CHECK(choose_path(m, {0, 10, 0}));
}

TEST_CASE("deferred visits") {
  CHECK(switch_visit(1, 1));
  CHECK(switch_visit(7, 1));
  CHECK_FALSE(switch_visit(1, 32));
  CHECK(switch_visit(32, 32));
  CHECK(switch_visit(64, 32));
}

TEST_CASE("quiet switches move nothing through shared memory") {
  branch_masks m;
  m.at_branch = 0xffffffffu;
  m.want_then = 0;
  const auto p = plan_switch(m, {0, 5, 59}, false);
  CHECK(p.quiet());
  CHECK(p.runs == 0xffffffffu);
  m.want_then = 0x3u;
  const auto q = plan_switch(m, {0, 0, 0}, false);  // pool full of nothing, no free slot: park
  CHECK(q.quiet());
  CHECK(q.parks() == 2);
}

TEST_CASE("shared memory check names the sizes and what to lower") {
  CHECK(pool_shared_bytes(1000, 128) == 4000);
  CHECK_NOTHROW(require_shared_fit(4000, 4000, 64, 16, 128));
  try {
    require_shared_fit(300000, 232448, 160, 400, 128);
    FAIL("expected std::invalid_argument");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("300000") != std::string::npos);
    CHECK(what.find("232448") != std::string::npos);
    CHECK(what.find("ContextsPerWarp") != std::string::npos);
  }
  switching_arguments a;
  CHECK_NOTHROW(validate(a));
  a.switch_every = 0;
  CHECK_THROWS_AS(validate(a), std::invalid_argument);
}
