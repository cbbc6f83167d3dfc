// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file switching_runner.cuh
//! Shared device-side machinery of the switching runners: dispatch on the compiled pool sizes,
//! timing with CUDA events, the exactly-once run.

#include <stdexcept>
#include <string>

#include "baselines/vanilla.cuh"
#include "microsched/check/counted_program.cuh"
#include "microsched/device_buffer.hpp"
#include "microsched/measure/event_timer.hpp"
#include "microsched/scheduler.cuh"
#include "microsched/switching/divergent_program.cuh"
#include "switching_runners.hpp"

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

//! Throws unless the variant asks for the register cap this code was compiled with.
template <int MinBlocks>
void require_cap(const variant& v) {
  if (v.min_blocks_per_sm == MinBlocks) return;
  throw std::invalid_argument(
      "register cap (min blocks/SM) = " + std::to_string(v.min_blocks_per_sm) +
      ": this kernel is compiled for " + std::to_string(MinBlocks) +
      " (the ray caster: see compiled_register_caps(); other workloads: 0)");
}

template <class Program, int Contexts, int MinBlocks>
using switching_for = scheduler<Program, switching_policy<block_threads, Contexts, MinBlocks>>;

template <int MinBlocks = 0, class Program>
timing_stats time_switching(event_timer& timer, const Program& program, task_id n, const variant& v,
                            const timing_options& options, cudaStream_t stream) {
  require_cap<MinBlocks>(v);
  return with_pool_size(v.contexts_per_warp, [&](auto c) {
    switching_for<Program, decltype(c)::value, MinBlocks> sched(v.schedule);
    (void)sched.plan(n);
    sched.calibrate(program, n, stream);  // automatic: choose before timing
    set_last_switching_schedule(sched.report(n));
    return timer.time([&](cudaStream_t s) { sched.run(program, n, s); }, options, stream);
  });
}

template <int MinBlocks = 0, class Program>
void run_switching(const Program& program, task_id n, const variant& v, cudaStream_t stream) {
  require_cap<MinBlocks>(v);
  with_pool_size(v.contexts_per_warp, [&](auto c) {
    switching_for<Program, decltype(c)::value, MinBlocks> sched(v.schedule);
    sched.run(program, n, stream);
  });
}

template <int MinBlocks = 0, class Program>
void run_counted(const Program& program, std::uint32_t* counts, task_id n, const variant& v,
                 cudaStream_t stream) {
  run_switching<MinBlocks>(counted_program<Program>{program, counts}, n, v, stream);
}

template <int MinBlocks = 0, class Program>
std::string resources(const Program&, task_id n, const variant& v) {
  require_cap<MinBlocks>(v);
  return with_pool_size(v.contexts_per_warp, [&](auto c) {
    using sched_t = switching_for<Program, decltype(c)::value, MinBlocks>;
    sched_t sched(v.schedule);
    const auto plan = sched.plan(n);
    return to_string(plan.resources) + ", " + std::to_string(sched_t::dynamic_shared_bytes) +
           " B pools/block, grid " + std::to_string(plan.blocks);
  });
}

template <class Program>
void run_vanilla(const Program& program, task_id n, cudaStream_t stream) {
  baselines::run_vanilla(switching::divergent_program<Program>{program}, n, stream);
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

}  // namespace microsched::switching_workloads::detail
