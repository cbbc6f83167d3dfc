// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file lane_run.hpp
//! The warp_range strategy's private pool (frey2012 §4.1's lowest level), held by a warp: a range
//! of tasks from which a lane takes its next task within the deferral as soon as its task
//! ends, so a finished task costs no atomic and no wait for the warp's next check. Pure
//! arithmetic, shared by the device source and lane and the host tests.

#include "microsched/config.hpp"
#include "microsched/lane/lane_mask.hpp"
#include "microsched/pool/task_range.hpp"

namespace microsched {

//! What a stream refill hands a warp: the range it grabbed and the lanes that were idle.
struct warp_run {
  task_range got;
  unsigned idle = 0;
};

//! Tasks per lane for a grab: the remaining tasks shared over twice the resident lanes (guided
//! self-scheduling), at least 1 and at most `longest`. Long runs early amortise the grab; short
//! runs at the end keep the last warps from holding long private pools while the others idle.
//! @param total    tasks in the global pool
//! @param next     the pool counter as this warp last saw it (an estimate: others move it)
//! @param resident lanes of the grid
//! @param longest  the schedule's chunk: the longest run a lane takes
[[nodiscard]] constexpr MICROSCHED_HD task_id stream_run_length(task_id total, task_id next,
                                                                task_id resident, task_id longest) {
  const task_id remaining = total > next ? total - next : 0;
  const task_id guided = resident > 0 ? remaining / (2 * resident) : remaining;
  return guided < 1 ? 1 : (guided > longest ? longest : guided);
}

//! The lanes of `takers` (a ballot) each take the next task of the warp's range [next, end), in
//! lane order: `lane` takes next + its rank. Returns the task, or `end` where the range ran out
//! before this lane; every lane advances its copy of `next` alike, so the range stays uniform.
//! Over any sequence of ballots the tasks taken cover [next, end) once.
[[nodiscard]] MICROSCHED_HD task_id take_in_order(task_id& next, task_id end, unsigned takers,
                                                  unsigned lane) {
  const task_id mine = next + static_cast<task_id>(rank_in_mask(takers, lane));
  const task_id after = next + static_cast<task_id>(popcount(takers));
  next = after < end ? after : end;
  return mine < end ? mine : end;
}

}  // namespace microsched
