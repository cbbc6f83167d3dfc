#pragma once
//! @file switching_runner.cuh
//! Shared device-side machinery of the switching runners: dispatch on the compiled pool sizes,
//! timing with CUDA events, the exactly-once run.

#include <stdexcept>
#include <string>

#include "baselines/vanilla.cuh"
#include "microsched/device_buffer.hpp"
#include "microsched/measure/event_timer.hpp"
#include "microsched/scheduler.cuh"
#include "microsched/switching/counted_managed_program.cuh"
#include "microsched/switching/divergent_program.cuh"
#include "microsched/switching/switching_scheduler.cuh"
#include "switching_runners.hpp"

namespace microsched::switching_workloads::detail {

inline constexpr int block_threads = 128;

//! Calls f(std::integral_constant<int, C>) for the compiled pool size C == contexts.
template <class F>
decltype(auto) with_pool_size(int contexts, F&& f) {
  switch (contexts) {
    case 64: return f(std::integral_constant<int, 64>{});
    case 128: return f(std::integral_constant<int, 128>{});
    default: break;
  }
  throw std::invalid_argument("contexts per warp = " + std::to_string(contexts) +
                              ": compiled pool sizes are 64 and 128");
}

template <class Program>
timing_stats time_switching(event_timer& timer, const Program& program, task_id n,
                            const variant& v, const timing_options& options, cudaStream_t stream) {
  return with_pool_size(v.contexts_per_warp, [&](auto c) {
    switching::switching_scheduler<Program, block_threads, decltype(c)::value> sched(v.schedule,
                                                                                     v.switching);
    (void)sched.plan(n);
    return timer.time([&](cudaStream_t s) { sched.run(program, n, s); }, options, stream);
  });
}

template <class Program>
void run_counted(const Program& program, std::uint32_t* counts, task_id n, const variant& v,
                 cudaStream_t stream) {
  with_pool_size(v.contexts_per_warp, [&](auto c) {
    using counted = switching::counted_managed_program<Program>;
    switching::switching_scheduler<counted, block_threads, decltype(c)::value> sched(v.schedule,
                                                                                     v.switching);
    sched.run(counted{program, counts}, n, stream);
  });
}

template <class Program>
std::string resources(const Program&, task_id n, const variant& v) {
  return with_pool_size(v.contexts_per_warp, [&](auto c) {
    switching::switching_scheduler<Program, block_threads, decltype(c)::value> sched(v.schedule,
                                                                                     v.switching);
    const auto plan = sched.plan(n);
    return to_string(plan.resources) + ", " + std::to_string(sched.shared_bytes) +
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
  scheduler<switching::divergent_program<Program>, block_threads> sched(args);
  (void)sched.plan(n);
  const switching::divergent_program<Program> adapted{program};
  return timer.time([&](cudaStream_t s) { sched.run(adapted, n, s); }, options, stream);
}

}  // namespace microsched::switching_workloads::detail
