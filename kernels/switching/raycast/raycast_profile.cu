// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Untimed diagnostic runs of the ray caster: visit counters and completion stamps.
#include "raycast/raycast_switching.cuh"
#include "runner_machinery.cuh"
#include "visit_stats.cuh"

namespace microsched::switching_workloads::detail {

void profile_switching_run(const kernels::raycast::raycast_program& program,
                           visit_counters* counters, unsigned long long* begin_ns,
                           unsigned long long* end_ns, task_id n, const variant& v,
                           cudaStream_t stream) {
  run_switching(
      stats_program<kernels::raycast::raycast_program>{program, counters, begin_ns, end_ns}, n, v,
      stream);
}

void profile_vanilla_run(const kernels::raycast::raycast_program& program,
                         unsigned long long* begin_ns, unsigned long long* end_ns, task_id n,
                         cudaStream_t stream) {
  run_vanilla(stats_program<kernels::raycast::raycast_program>{program, nullptr, begin_ns, end_ns},
              n, stream);
}

}  // namespace microsched::switching_workloads::detail
