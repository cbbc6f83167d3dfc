// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file task_range.hpp
//! A task pool at any level is two counters: the next task and one past the last (frey2012 §4.1).

#include "microsched/config.hpp"

namespace microsched {

struct task_range {
  task_id next = 0;
  task_id end = 0;

  [[nodiscard]] MICROSCHED_HD task_id size() const { return end > next ? end - next : 0; }
  [[nodiscard]] MICROSCHED_HD bool empty() const { return next >= end; }
};

//! The part of a grab [base, base + count) that lies below `total`: what a pool really received
//! when an atomic ran past the end of the global pool.
[[nodiscard]] MICROSCHED_HD task_range clamp_grab(task_id base, task_id count, task_id total) {
  const task_id end = (base < total) ? (total - base < count ? total : base + count) : base;
  return {base, end};
}

//! Local strategy: block `block` statically owns tasks [block*chunk, min((block+1)*chunk, total)).
[[nodiscard]] MICROSCHED_HD task_range local_block_range(task_id block, task_id chunk,
                                                         task_id total) {
  return clamp_grab(block * chunk, chunk, total);
}

//! The private_pools strategy: the i-th lane needing a refill in a warp-aggregated grab based at
//! `base` receives its own chunk.
[[nodiscard]] MICROSCHED_HD task_range private_chunk(task_id base, int rank, task_id chunk,
                                                     task_id total) {
  return clamp_grab(base + static_cast<task_id>(rank) * chunk, chunk, total);
}

//! Hybrid strategy refill plan for one warp whose local pool holds `local` and which has `need`
//! idle lanes: how many tasks to grab from the global pool (zero if the local pool suffices).
//! A grab takes the shortfall plus one chunk, so the next refills stay local (frey2012 §4.2).
[[nodiscard]] MICROSCHED_HD task_id hybrid_grab_size(task_range local, int need, task_id chunk) {
  const task_id have = local.size();
  const auto want = static_cast<task_id>(need);
  return have >= want ? 0 : want - have + chunk;
}

//! Hybrid: the task for the idle lane of rank `rank`: first from what is left in the local pool,
//! then from the fresh grab. Returns false if both are used up.
[[nodiscard]] MICROSCHED_HD bool hybrid_pick(task_range local, task_range grabbed, int rank,
                                             task_id& out) {
  const auto r = static_cast<task_id>(rank);
  if (r < local.size()) {
    out = local.next + r;
    return true;
  }
  const task_id g = r - local.size();
  if (g < grabbed.size()) {
    out = grabbed.next + g;
    return true;
  }
  return false;
}

//! Hybrid: the local pool after `need` idle lanes took their tasks from `local` then `grabbed`.
[[nodiscard]] MICROSCHED_HD task_range hybrid_after(task_range local, task_range grabbed,
                                                    int need) {
  const auto want = static_cast<task_id>(need);
  if (want <= local.size()) return {local.next + want, local.end};
  const task_id from_grab = want - local.size();
  if (from_grab >= grabbed.size()) return {grabbed.end, grabbed.end};
  return {grabbed.next + from_grab, grabbed.end};
}

}  // namespace microsched
