// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ray caster's scheduled runs: context switching under a variant, and the default.
#include "raycast/raycast_switching.cuh"
#include "runner_machinery.cuh"

namespace microsched::switching_workloads::detail {

// The default's pool: 64 contexts per warp, so that the automatic grid's blocks fit at 2048x2048.
constexpr int raycast_default_contexts = 64;

timing_stats raycast_time_switching(event_timer& timer, const raycast_program_t& program, task_id n,
                                    const variant& v, const timing_options& options,
                                    cudaStream_t stream) {
  return time_switching(timer, program, n, v, options, stream);
}

void raycast_run_switching(const raycast_program_t& program, task_id n, const variant& v,
                           cudaStream_t stream) {
  run_switching(program, n, v, stream);
}

void raycast_run_counted(const raycast_program_t& program, std::uint32_t* counts, task_id n,
                         const variant& v, cudaStream_t stream) {
  run_counted(program, counts, n, v, stream);
}

std::string raycast_resources(const raycast_program_t& program, task_id n, const variant& v) {
  return resources(program, n, v);
}

default_times raycast_time_default(event_timer& timer, const raycast_program_t& program, task_id n,
                                   const timing_options& options, cudaStream_t stream) {
  return time_default<raycast_default_contexts>(timer, program, n, options, stream);
}

std::vector<switching::branch_form> raycast_default_forms(const raycast_program_t& program) {
  return default_forms(program);
}

void raycast_run_form_counted(const raycast_program_t& program, std::uint32_t* counts, task_id n,
                              const switching::branch_form& f, cudaStream_t stream) {
  run_form_counted<raycast_default_contexts>(program, counts, n, f, stream);
}

}  // namespace microsched::switching_workloads::detail
