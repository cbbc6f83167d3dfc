// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file vote.hpp
//! Vote and switch at a managed branch (frey2012 §3.2, Listing 1) as pure functions of ballot
//! masks and pool counts, so host tests can check them exhaustively. The device gate calls the
//! same functions; nothing here touches memory.
//!
//! Vocabulary, per managed branch k: a lane is *at* the branch when its context is active or
//! parked before k (contexts parked before another branch do not vote); *empty* lanes hold no
//! context (finished or never filled). The branch map keeps, per path, a stack of pool slots
//! whose contexts are parked before k and need that path; free slots form a third stack.

#include "microsched/config.hpp"
#include "microsched/lane/lane_mask.hpp"

namespace microsched::switching {

//! Warp-uniform ballots taken at a managed branch.
struct branch_masks {
  unsigned at_branch = 0;  //!< lanes whose context is at this branch (active or parked here)
  unsigned want_then = 0;  //!< subset of at_branch whose context needs the then path
  unsigned empty = 0;      //!< lanes holding no context
};

//! Parked contexts of one branch in the pool, and the pool's free slots.
struct pool_counts {
  int then_parked = 0;
  int else_parked = 0;
  int free_slots = 0;
};

//! The path the warp executes: the one more contexts need, attached and parked together
//! (Listing 1's consensus). A tie goes to the path more attached lanes need (fewer swaps), and a
//! full tie to the else path.
[[nodiscard]] MICROSCHED_HD bool choose_path(branch_masks m, pool_counts pool) {
  const int attached_then = popcount(m.want_then & m.at_branch);
  const int attached_else = popcount(m.at_branch & ~m.want_then);
  const int need_then = attached_then + pool.then_parked;
  const int need_else = attached_else + pool.else_parked;
  if (need_then != need_else) return need_then > need_else;
  return attached_then > attached_else;
}

//! Deferred switching (§3.3): the full vote runs on every `every`-th visit of a branch (visits
//! counted from 1); the other visits follow the user's default path without a ballot. The gate
//! follows this schedule with a per-branch countdown (no division on the device).
[[nodiscard]] MICROSCHED_HD bool switch_visit(unsigned visit, unsigned every) {
  return every <= 1 || visit % every == 0;
}

//! Warp-uniform plan of one vote and switch. Movers (lanes at the branch needing the other
//! path) are served first, empty lanes after them, each in lane order: the i-th served lane
//! takes the i-th context from the top of the chosen path's stack.
struct switch_plan {
  bool path = false;    //!< the path the warp executes
  unsigned runs = 0;    //!< lanes that run it with their own context
  unsigned movers = 0;  //!< lanes at the branch needing the other path
  unsigned empty = 0;   //!< lanes with no context
  int available = 0;    //!< contexts parked for `path` before the switch
  int other = 0;        //!< contexts parked for the other path before the switch
  int free_slots = 0;   //!< free pool slots before the switch
  int swaps = 0;        //!< movers that load a context and store theirs in its slot
  int stores = 0;       //!< movers that store theirs in a free slot (no context to load)
  int fills = 0;        //!< empty lanes that load a context (its slot becomes free)

  [[nodiscard]] MICROSCHED_HD int path_after() const { return available - swaps - fills; }
  [[nodiscard]] MICROSCHED_HD int other_after() const { return other + swaps + stores; }
  [[nodiscard]] MICROSCHED_HD int free_after() const { return free_slots - stores + fills; }
  //! Movers that keep their context attached, parked (the pool had neither a fitting context
  //! nor a free slot for them).
  [[nodiscard]] MICROSCHED_HD int parks() const { return popcount(movers) - swaps - stores; }
  //! True when nothing moves through shared memory.
  [[nodiscard]] MICROSCHED_HD bool quiet() const { return swaps + stores + fills == 0; }
};

[[nodiscard]] MICROSCHED_HD int min_int(int a, int b) {
  return a < b ? a : b;
}

[[nodiscard]] MICROSCHED_HD switch_plan plan_switch(branch_masks m, pool_counts pool, bool path) {
  switch_plan p;
  p.path = path;
  const unsigned want_path = path ? m.want_then : ~m.want_then;
  p.runs = m.at_branch & want_path;
  p.movers = m.at_branch & ~want_path;
  p.empty = m.empty & ~m.at_branch;
  p.available = path ? pool.then_parked : pool.else_parked;
  p.other = path ? pool.else_parked : pool.then_parked;
  p.free_slots = pool.free_slots;
  const int movers = popcount(p.movers);
  p.swaps = min_int(movers, p.available);
  p.stores = min_int(movers - p.swaps, p.free_slots);
  p.fills = min_int(popcount(p.empty), p.available - p.swaps);
  return p;
}

//! What one lane does in a switch.
enum class lane_action : unsigned char {
  run,    //!< runs the chosen path with its own context
  swap,   //!< loads a fitting context, stores its own in the same slot
  store,  //!< stores its context in a free slot and leaves the lane empty
  park,   //!< keeps its context attached, parked before this branch
  fill,   //!< an empty lane loading a fitting context
  idle,   //!< neither at the branch nor served
};

//! One lane's part of a switch_plan. Indices are into the stacks (not slots): `load_index` into
//! the chosen path's stack, `free_index` into the free stack (popped for a store, pushed for a
//! fill), `push_index` into the other path's stack.
struct lane_plan {
  lane_action action = lane_action::idle;
  int load_index = -1;
  int free_index = -1;
  int push_index = -1;
};

[[nodiscard]] MICROSCHED_HD lane_plan plan_lane(const switch_plan& p, unsigned lane) {
  lane_plan l;
  const unsigned bit = 1u << lane;
  if (p.runs & bit) {
    l.action = lane_action::run;
  } else if (p.movers & bit) {
    const int rank = rank_in_mask(p.movers, lane);
    if (rank < p.swaps) {
      l.action = lane_action::swap;
      l.load_index = p.available - 1 - rank;
      l.push_index = p.other + rank;
    } else if (rank < p.swaps + p.stores) {
      l.action = lane_action::store;
      l.free_index = p.free_slots - 1 - (rank - p.swaps);
      l.push_index = p.other + rank;
    } else {
      l.action = lane_action::park;
    }
  } else if (p.empty & bit) {
    const int rank = rank_in_mask(p.empty, lane);
    if (rank < p.fills) {
      l.action = lane_action::fill;
      l.load_index = p.available - p.swaps - 1 - rank;
      l.free_index = p.free_slots - p.stores + rank;
    }
  }
  return l;
}

}  // namespace microsched::switching
