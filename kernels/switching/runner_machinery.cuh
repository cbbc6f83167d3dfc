// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file runner_machinery.cuh
//! Shared device-side machinery of the switching runners: dispatch on the compiled pool sizes,
//! timing with CUDA events, the exactly-once run.

#include <stdexcept>
#include <string>

#include "baselines/vanilla.cuh"
#include "microsched/automatic_switching.cuh"
#include "microsched/check/counted_program.cuh"
#include "microsched/device_buffer.hpp"
#include "microsched/measure/event_timer.hpp"
#include "microsched/scheduler.cuh"
#include "microsched/switching/divergent_program.cuh"
#include "switching_workloads.hpp"

namespace microsched::switching_workloads::detail {

inline constexpr int block_threads = 128;

//! Calls f(std::integral_constant<int, C>) for the compiled pool size C == contexts.
template <class F>
decltype(auto) with_pool_size(int contexts, F&& f) {
  switch (contexts) {
    case 64:
      return f(std::integral_constant<int, 64>{});
    case 128:
      return f(std::integral_constant<int, 128>{});
    default:
      break;
  }
  throw std::invalid_argument("contexts per warp = " + std::to_string(contexts) +
                              ": compiled pool sizes are 64 and 128");
}

template <class Program, int Contexts>
using switching_for = scheduler<Program, switching_policy<block_threads, Contexts>>;

template <class Program>
timing_stats time_switching(event_timer& timer, const Program& program, task_id n, const variant& v,
                            const timing_options& options, cudaStream_t stream) {
  return with_pool_size(v.contexts_per_warp, [&](auto c) {
    switching_for<Program, decltype(c)::value> sched(v.schedule);
    (void)sched.plan(n);
    sched.calibrate(program, n, stream);  // automatic: choose before timing
    set_last_switching_schedule(sched.report(n));
    return timer.time([&](cudaStream_t s) { sched.run(program, n, s); }, options, stream);
  });
}

template <class Program>
void run_switching(const Program& program, task_id n, const variant& v, cudaStream_t stream) {
  with_pool_size(v.contexts_per_warp, [&](auto c) {
    switching_for<Program, decltype(c)::value> sched(v.schedule);
    sched.run(program, n, stream);
  });
}

template <class Program>
void run_counted(const Program& program, std::uint32_t* counts, task_id n, const variant& v,
                 cudaStream_t stream) {
  run_switching(counted_program<Program>{program, counts}, n, v, stream);
}

template <class Program>
std::string resources(const Program&, task_id n, const variant& v) {
  return with_pool_size(v.contexts_per_warp, [&](auto c) {
    using sched_t = switching_for<Program, decltype(c)::value>;
    sched_t sched(v.schedule);
    const auto plan = sched.plan(n);
    return to_string(plan.resources) + ", " + std::to_string(sched_t::dynamic_shared_bytes) +
           " B pools/block, grid " + std::to_string(plan.blocks);
  });
}

template <class Program>
void run_vanilla(const Program& program, task_id n, cudaStream_t stream,
                 int threads = baselines::vanilla_block_threads) {
  baselines::run_vanilla_in_blocks(switching::divergent_program<Program>{program}, n, threads,
                                   stream);
}

template <class Program>
timing_stats time_termination(event_timer& timer, const Program& program, task_id n,
                              const schedule_arguments& args, const timing_options& options,
                              cudaStream_t stream) {
  scheduler<switching::divergent_program<Program>, termination_policy<block_threads>> sched(args);
  (void)sched.plan(n);
  const switching::divergent_program<Program> adapted{program};
  sched.calibrate(adapted, n, stream);  // automatic: choose before timing
  return timer.time([&](cudaStream_t s) { sched.run(adapted, n, s); }, options, stream);
}

//! The default's contexts per warp for each workload's policy.
template <int Contexts>
using default_policy = switching_policy<block_threads, Contexts>;

//! Decides the automatic switching schedule on runs before the timed ones (never from the
//! calibration cache: the fastest direct form must have been timed), then times the choice and
//! the fastest direct form in turns.
template <int Contexts, class Program>
default_times time_default(event_timer& timer, const Program& program, task_id n,
                           const timing_options& options, cudaStream_t stream) {
  switching::branch_form_options decide_here;
  decide_here.cache = false;
  switching::automatic_switching<Program, default_policy<Contexts>> automatic(decide_here);
  automatic.calibrate(program, n, stream);
  const switching::branch_form direct = automatic.best_direct();
  scheduler<Program, default_policy<Contexts>> reference(direct.schedule);
  const Program direct_program = switching::program_for(program, direct);
  auto [chosen, best_direct] = timer.time_in_turns(
      [&](cudaStream_t s) { automatic.run(program, n, s); },
      [&](cudaStream_t s) { reference.run(direct_program, n, s); }, options, stream);
  default_times t;
  t.chosen = chosen;
  t.best_direct = best_direct;
  t.choice = switching::form_name<Program>(automatic.choice());
  t.direct_form = switching::form_name<Program>(direct);
  t.report = automatic.report();
  t.calibration_ms = automatic.calibration_ms();
  set_last_switching_schedule(t.report);
  return t;
}

//! The automatic list's forms for `program` (default options).
template <class Program>
std::vector<switching::branch_form> default_forms(const Program& program) {
  return switching::branch_forms(switching::windowed_program<Program>,
                                 switching::available_orders(program), {});
}

//! One counted run of `program` in form `f` (each task adds 1 to its counter).
template <int Contexts, class Program>
void run_form_counted(const Program& program, std::uint32_t* counts, task_id n,
                      const switching::branch_form& f, cudaStream_t stream) {
  using counted = counted_program<Program>;
  scheduler<counted, default_policy<Contexts>> sched(f.schedule);
  sched.run(counted{switching::program_for(program, f), counts}, n, stream);
}

}  // namespace microsched::switching_workloads::detail
