// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file raycast_switching.cuh
//! The ray caster's scheduled runs (context switching, the automatic switching schedule), in a
//! translation unit of their own (raycast_switching.cu) that compiles beside the runner's.

#include <cstdint>
#include <string>

#include "microsched/measure/event_timer.hpp"
#include "raycast/raycast_program.cuh"
#include "switching_workloads.hpp"

namespace microsched::switching_workloads::detail {

using raycast_program_t = kernels::raycast::raycast_program;

timing_stats raycast_time_switching(event_timer& timer, const raycast_program_t& program, task_id n,
                                    const variant& v, const timing_options& options,
                                    cudaStream_t stream);
void raycast_run_switching(const raycast_program_t& program, task_id n, const variant& v,
                           cudaStream_t stream);
void raycast_run_counted(const raycast_program_t& program, std::uint32_t* counts, task_id n,
                         const variant& v, cudaStream_t stream);
std::string raycast_resources(const raycast_program_t& program, task_id n, const variant& v);
default_times raycast_time_default(event_timer& timer, const raycast_program_t& program, task_id n,
                                   const timing_options& options, cudaStream_t stream);
std::vector<switching::branch_form> raycast_default_forms(const raycast_program_t& program);
void raycast_run_form_counted(const raycast_program_t& program, std::uint32_t* counts, task_id n,
                              const switching::branch_form& f, cudaStream_t stream);

//! Untimed diagnostic runs (raycast_profile.cu): the switching driver and vanilla, on the program
//! wrapped in stats_program (visit_stats.cuh).
struct visit_counters;
void profile_switching_run(const raycast_program_t& program, visit_counters* counters,
                           unsigned long long* begin_ns, unsigned long long* end_ns, task_id n,
                           const variant& v, cudaStream_t stream);
void profile_vanilla_run(const raycast_program_t& program, unsigned long long* begin_ns,
                         unsigned long long* end_ns, task_id n, cudaStream_t stream);

}  // namespace microsched::switching_workloads::detail
