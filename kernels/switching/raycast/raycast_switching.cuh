// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file raycast_switching.cuh
//! The ray caster's context-switching runs, one explicit instantiation per register cap
//! (compiled_register_caps()), each in its own translation unit (raycast_switching_cap*.cu): the
//! caps compile in parallel, and a cap on the switching kernel cannot reach the vanilla kernel's
//! code (raycast_runner.cu) through a shared out-of-line function.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "microsched/measure/event_timer.hpp"
#include "raycast/raycast_program.cuh"
#include "switching_runners.hpp"

namespace microsched::switching_workloads::detail {

//! MinBlocks: the switching kernel's __launch_bounds__ minimum blocks per SM (0 = no cap).
template <int MinBlocks>
struct raycast_switching {
  using program_t = kernels::raycast::raycast_program;
  static timing_stats time(event_timer& timer, const program_t& program, task_id n,
                           const variant& v, const timing_options& options, cudaStream_t stream);
  static void run(const program_t& program, task_id n, const variant& v, cudaStream_t stream);
  static void run_counted(const program_t& program, std::uint32_t* counts, task_id n,
                          const variant& v, cudaStream_t stream);
  static std::string resources(const program_t& program, task_id n, const variant& v);
};

//! Untimed diagnostic runs (raycast_profile.cu): the switching driver without a register cap,
//! and vanilla, on the program wrapped in stats_program (visit_stats.cuh).
struct visit_counters;
void profile_switching_run(const kernels::raycast::raycast_program& program,
                           visit_counters* counters, unsigned long long* begin_ns,
                           unsigned long long* end_ns, task_id n, const variant& v,
                           cudaStream_t stream);
void profile_vanilla_run(const kernels::raycast::raycast_program& program,
                         unsigned long long* begin_ns, unsigned long long* end_ns, task_id n,
                         cudaStream_t stream);

extern template struct raycast_switching<0>;
extern template struct raycast_switching<8>;
extern template struct raycast_switching<10>;

//! Calls f(raycast_switching<C>{}) for the compiled cap C == v.min_blocks_per_sm.
template <class F>
decltype(auto) with_register_cap(const variant& v, F&& f) {
  switch (v.min_blocks_per_sm) {
    case 0:
      return f(raycast_switching<0>{});
    case 8:
      return f(raycast_switching<8>{});
    case 10:
      return f(raycast_switching<10>{});
    default:
      break;
  }
  throw std::invalid_argument(
      "register cap (min blocks/SM) = " + std::to_string(v.min_blocks_per_sm) +
      ": the ray caster is compiled for 0 (none), 8 and 10");
}

}  // namespace microsched::switching_workloads::detail
