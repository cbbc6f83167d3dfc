// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The pipeline workloads in the registry (gafort, unwrap, Black-Scholes, and the loop-carried
// gafort): the workload interface over the public pipeline API (chunk_pipeline, split_loop) and
// their programs (pipeline_workloads.hpp). There is no scheduler and no persistent driver:
// vanilla is the original loop, and every time is the whole loop's on the host clock, helpers
// included. The tunables are the depth (Δ), the helper threads and the method (chunk pipeline),
// or the ratio and the helpers (kernel splitting).
#include "pipeline_registry.hpp"

#include <cuda_runtime_api.h>

#include "microsched/error.hpp"

namespace microsched::workloads::registry {

workload_traits pipeline_traits() {
  return {
      .area = "pipeline",
      .takes_schedule = false,
      .baselines = {
          .vanilla = "original loop", .persistent = "", .floor = "", .missing = pipeline_missing}};
}

void wait_for_device() {
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
}

std::vector<entry> pipeline_entries() {
  auto entries = chunk_pipeline_entries();
  entries.push_back(carried_entry());
  return entries;
}

}  // namespace microsched::workloads::registry
