// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file schedule_arguments.hpp
//! What a user chooses at run time (CUTLASS-style Arguments). Nothing here sizes storage, so
//! every value can change without recompiling. The kernel never sees this struct: the scheduler
//! turns it into driver_params (driver/driver_params.hpp) for each launch.

#include <cstdint>
#include <string>

#include "microsched/fetch/fetch_control.hpp"
#include "microsched/schedule/pool_strategy.hpp"
#include "microsched/schedule/switching_arguments.hpp"

namespace microsched {

[[nodiscard]] pool_strategy parse_pool_strategy(const std::string& text);
[[nodiscard]] std::string to_string(pool_strategy strategy);

//! The direct mapping in either form (direct, strided): one thread per task, run to completion.
[[nodiscard]] constexpr bool is_direct_form(pool_strategy s) {
  return s == pool_strategy::direct || s == pool_strategy::strided;
}

struct schedule_arguments {
  //! automatic (the default) chooses the whole schedule at run time and ignores the fields
  //! below but `switching`; any other strategy runs exactly the schedule given.
  pool_strategy strategy = pool_strategy::automatic;
  fetch_control fetch = fetch_control::any();
  std::uint64_t chunk = 32;  //!< tasks per grab from the level above (Local: tasks per block)
  //! Steps (termination) or step visits (switching) between two fetch checks; the checks'
  //! ballot is paid once per deferral. 0: the policy's default (termination_policy: 64;
  //! switching_policy: switching.switch_every, so refills line up with the votes).
  int deferral = 0;
  int blocks_per_sm = 0;  //!< 0: automatic, from occupancy (see grid_blocks)
  //! Budgeted only: steps each task runs in the direct pass before it waits, saved, for the
  //! persistent warps. 0: default_budget.
  int budget = 0;
  //! warp_range only: steps a lane runs between two refills within the deferral, 4 or 8 (the
  //! compiled periods). Cheap steps want 8 (fewer ballots), costly ones 4 (a finished lane
  //! idles less); policy/warp_range_lane.cuh has the figures. 0: default_warp_range_period.
  int period = 0;
  //! Context switching at managed branches; read by switching_policy only.
  switching_arguments switching;

  friend bool operator==(const schedule_arguments&, const schedule_arguments&) = default;
};

//! The budgeted strategy's steps per task in the direct pass when `budget` is 0.
inline constexpr int default_budget = 64;

//! The steps per task the budgeted strategy's direct pass runs for `args`.
[[nodiscard]] inline int budget_of(const schedule_arguments& args) {
  return args.budget > 0 ? args.budget : default_budget;
}

//! The warp_range strategy's steps between refills for `args`.
[[nodiscard]] inline int period_of(const schedule_arguments& args) {
  return args.period > 0 ? args.period : default_warp_range_period;
}

//! Throws std::invalid_argument naming the first bad value: chunk 0, a negative deferral, budget
//! or blocks per SM, a period other than 0, 4 or 8, an idle threshold outside 1..32,
//! switch_every below 1, a vote threshold outside 1..33.
void validate(const schedule_arguments& args);
void validate(const switching_arguments& args);

//! "hybrid any chunk=32 deferral=64 blocks/SM=auto", "warp_range period=8 any chunk=16 ..."
[[nodiscard]] std::string to_string(const schedule_arguments& args);
//! "immediate, parked contexts last in first out", "deferred every 4, vanilla at >=24 ..."
[[nodiscard]] std::string to_string(const switching_arguments& args);

//! Grid size in blocks for a launch. Pure: the caller queries the SM count and the occupancy
//! (blocks of this kernel that fit on one SM) from the device. With blocks_per_sm = 0 the grid
//! takes as many blocks per SM as fit, but at most `auto_limit` when that is positive. Throws
//! std::invalid_argument when the request cannot run: more blocks per SM than fit, a kernel that
//! fits zero blocks, or a Local grid over the launch limit.
[[nodiscard]] std::uint64_t grid_blocks(const schedule_arguments& args, std::uint64_t num_tasks,
                                        int sm_count, int max_blocks_per_sm, int auto_limit = 0);

//! The automatic grid's limit of blocks per SM that keeps each lane at most `tasks_per_lane`
//! tasks: at least `least`, more when the problem would give a lane more tasks than that (the
//! caller's grid_blocks() then keeps it to what fits). Throws std::invalid_argument for an SM
//! count, block size, least or tasks per lane below 1.
[[nodiscard]] int auto_blocks_for_tasks(std::uint64_t num_tasks, int sm_count, int block_threads,
                                        int least, int tasks_per_lane);

//! Blocks of the direct mapping: one thread per task, grid-stride beyond the launch limit.
[[nodiscard]] std::uint64_t direct_blocks(std::uint64_t num_tasks, int block_threads);

//! Entries of the budgeted strategy's survivor queue for a run of `num_tasks` tasks: an eighth
//! of the tasks, at least 65536 and at most 2^24 (a few hundred MiB), never more than the tasks. A
//! survivor that finds the queue full runs to its end in the direct pass, as vanilla would: a run
//! never fails for want of room, it only gains less. An eighth holds every Julia view's survivors
//! at budgets 64 and 128.
[[nodiscard]] std::uint64_t survivor_capacity(std::uint64_t num_tasks);

}  // namespace microsched
