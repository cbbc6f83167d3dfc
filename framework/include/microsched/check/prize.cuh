// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file prize.cuh
//! What porting pays, in one call: measure_prize() runs a task program three ways on the user's
//! data — the direct mapping (one thread per task: the user's own vanilla kernel), the scheduler,
//! and the uniform-work floor (every task the mean number of steps of the same step code, no
//! divergence) — and returns the three times, the steps per task (mean, max, mean over warps of
//! the slowest lane), the exactly-once check and whether the outputs agree. It also times the
//! longest task alone in one thread: where that chain of steps takes about as long as the floor,
//! no schedule can come close to the floor, and bound_ms() says what can be reached.
//!
//! \code
//! microsched::prize_report r = microsched::measure_prize(
//!     program, n, {{out.data(), n * sizeof(std::uint32_t)}});  // the buffers end() writes
//! std::printf("%s\n", r.summary().c_str());  // direct 0.86 ms, scheduled 0.47 ms (1.83x), ...
//! \endcode
//! The program's tasks run many times, so end() must overwrite its outputs (not accumulate), or
//! the buffers it updates are marked output_region::restore. On return the outputs hold a
//! scheduled run's results and the restored buffers their content before the call.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "microsched/check/counted_program.cuh"
#include "microsched/check/prize_kernels.cuh"
#include "microsched/check/prize_report.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/measure/event_timer.hpp"
#include "microsched/scheduler.cuh"

namespace microsched {

//! Throws std::invalid_argument for zero tasks or a bad output region (validate()), cuda_error or
//! no_device_error from the runs. `args`: the scheduler's schedule (automatic by default).
template <class Program, class Policy = default_policy_t<Program>>
prize_report measure_prize(const Program& program, task_id num_tasks,
                           const std::vector<output_region>& outputs,
                           const schedule_arguments& args = {}, timing_options timing = {},
                           cudaStream_t stream = nullptr) {
  if (num_tasks == 0) throw_invalid("tasks", num_tasks, "the prize needs at least one task");
  validate_begin_ids<Program>(num_tasks);
  for (const output_region& o : outputs) validate(o);
  prize_report r;
  r.tasks = num_tasks;
  // Steps per task, and the direct run's outputs as the reference.
  const auto state = detail::save_state(outputs, stream);
  detail::poison(outputs, stream);
  detail::summarize_steps(detail::steps_per_task(program, num_tasks, stream), r);
  const auto want = detail::copy_outputs(outputs, stream);
  // The scheduler's choice first (automatic: calibrated on these runs), then exactly once and
  // equal outputs under exactly that schedule.
  scheduler<Program, Policy> sched(args);
  sched.calibrate(program, num_tasks, stream);
  {
    task_counters counts(num_tasks);
    scheduler<counted_program<Program>, Policy> checked(sched.schedule_for(num_tasks));
    const counted_program<Program> counted{program, counts.data()};
    detail::restore_state(outputs, state, stream);
    detail::poison(outputs, stream);
    counts.reset(stream);
    checked.run(counted, num_tasks, stream);
    const exactly_once_count once = counts.check(stream);
    r.missing = once.missing;
    r.duplicated = once.duplicated;
    r.differing_bytes = detail::count_differing_bytes(want, outputs, stream);
  }
  event_timer timer;
  r.floor = detail::time_floor_at_mean(timer, program, num_tasks, r.steps_mean, timing, stream);
  r.longest_alone = timer.time(
      [&](cudaStream_t s) { detail::run_single_task(program, r.longest_task, s); }, timing, stream);
  schedule_arguments direct_args = args;
  direct_args.strategy = pool_strategy::direct;
  scheduler<Program, Policy> direct(direct_args);
  // Direct and scheduled in turns: their ratio is the answer, so both see the same conditions.
  std::tie(r.direct, r.scheduled) = timer.time_in_turns(
      [&](cudaStream_t s) { direct.run(program, num_tasks, s); },
      [&](cudaStream_t s) { sched.run(program, num_tasks, s); }, timing, stream);
  r.schedule = sched.report(num_tasks);
  detail::restore_state(outputs, state, stream);
  return r;
}

}  // namespace microsched
