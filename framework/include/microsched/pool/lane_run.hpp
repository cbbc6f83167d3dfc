#pragma once
//! @file lane_run.hpp
//! The stream strategy's private pools (frey2012 §4.1's lowest level): a lane owns a run of tasks
//! and begins the next one inside the compute window as soon as its task ends, so a finished
//! task costs no ballot, no atomic and no wait for the warp's next check. Pure arithmetic, shared
//! by the device source and the host tests.

#include "microsched/config.hpp"
#include "microsched/pool/task_range.hpp"

namespace microsched {

//! Tasks first, first + stride, ..., first + (count - 1) * stride: one lane's private pool.
struct lane_run {
  task_id first = 0;
  task_id stride = 1;
  task_id count = 0;
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

//! The run of the lane of rank `rank` among `lanes` lanes that shared the grab `got` of
//! lanes * per_lane tasks (clamped at the pool's end): tasks got.next + rank + j * lanes. The
//! runs interleave, so each lane's tasks spread over the whole grab (neighbouring tasks, often
//! of similar length, go to different lanes) and together they cover `got` exactly once.
[[nodiscard]] MICROSCHED_HD lane_run stream_run_of(task_range got, unsigned rank, unsigned lanes,
                                                   task_id per_lane) {
  const task_id size = got.size();
  if (rank >= size || lanes == 0) return {got.next + rank, lanes, 0};
  const task_id reach = (size - rank + lanes - 1) / lanes;  // tasks of this lane below got.end
  return {got.next + rank, lanes, reach < per_lane ? reach : per_lane};
}

}  // namespace microsched
