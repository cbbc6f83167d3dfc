// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The automatic schedule's candidate list; docs/decisions.md ("The automatic candidates") has
// the figures behind each entry.
#include <algorithm>

#include "microsched/error.hpp"
#include "microsched/schedule/calibration.hpp"

namespace microsched {

std::vector<schedule_arguments> automatic_candidates(bool switching,
                                                     const switching_arguments& switching_args,
                                                     bool budgetable, int block_threads) {
  if (block_threads < 32 || block_threads > 1024 || block_threads % 32 != 0) {
    throw_invalid("threads per block", block_threads, "must be a multiple of 32 in 32..1024");
  }
  std::vector<schedule_arguments> list;
  schedule_arguments direct;
  direct.strategy = pool_strategy::direct;
  direct.switching = switching_args;
  list.push_back(direct);
  // The direct mapping's other form, a grid-stride loop over 64-bit ids: the code generator
  // treats the two forms differently, by a few per cent either way (direct_kernel.cuh), and a
  // user's vanilla kernel may take either.
  schedule_arguments strided = direct;
  strided.strategy = pool_strategy::strided;
  list.push_back(strided);
  // Hybrid pools with the policy's default deferral: long tasks.
  schedule_arguments pools = direct;
  pools.strategy = pool_strategy::hybrid;
  pools.fetch = fetch_control::any();
  pools.chunk = 32;
  pools.deferral = 0;
  list.push_back(pools);
  if (!switching) {
    // Private pools of one task per grab: the most even spread of long, unequal tasks. A deferral
    // of 32 steps: a lane whose task ends waits half as long for its refill, and the extra
    // ballots cost less than that wait on these tasks.
    schedule_arguments spread = pools;
    spread.strategy = pool_strategy::private_pools;
    spread.chunk = 1;
    spread.deferral = 32;
    list.push_back(spread);
    // Short tasks (tens of steps): a short deferral, so that a finished lane idles a few steps,
    // not up to 64, before the warp refills it.
    schedule_arguments short_tasks = pools;
    short_tasks.deferral = 8;
    list.push_back(short_tasks);
    // Static block pools: no global atomic per grab, the best listed setting on the escaping
    // Julia views at large sizes.
    schedule_arguments blocks = pools;
    blocks.strategy = pool_strategy::local;
    blocks.chunk = 4096;
    list.push_back(blocks);
    // Warp ranges of 16 tasks per lane, taken within a deferral of 16 steps: the shortest tasks,
    // where a refill per task costs as much as the task. Steps of a few integer instructions
    // want a refill every 8 steps, heavier ones every 4, so both periods are timed. Short tasks
    // with a long tail run far slower than direct on them and drop them after one run.
    schedule_arguments runs = pools;
    runs.strategy = pool_strategy::warp_range;
    runs.chunk = 16;
    runs.deferral = 16;
    list.push_back(runs);
    schedule_arguments cheap_steps = runs;
    cheap_steps.period = long_warp_range_period;
    list.push_back(cheap_steps);
    if (budgetable) {
      // A direct pass of `budget` steps per task, then the survivors on private pools of one
      // task per grab, with the policy's deferral of 64. Short tasks with a long tail and long
      // unequal ones: the budget that wins depends on the lengths, so three are timed. The
      // shortest is 48: below it more tasks are still running than the survivor queue holds.
      schedule_arguments budgeted = pools;
      budgeted.strategy = pool_strategy::budgeted;
      budgeted.chunk = 1;
      for (const int budget : {48, 64, 128}) {
        budgeted.budget = budget;
        list.push_back(budgeted);
      }
      // Budget 64 with the survivors on half the automatic grid (512 threads per SM): a few long
      // chains of survivors wait less for their turn behind the other warps of their scheduler,
      // while many chains finish later.
      schedule_arguments few_warps = budgeted;
      few_warps.budget = 64;
      few_warps.blocks_per_sm = std::max(1, 512 / block_threads);
      list.push_back(few_warps);
    }
  }
  return list;
}

}  // namespace microsched
