// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file pipeline_registry.hpp
//! What the pipeline area's workloads in the registry share: the chunk pipeline's
//! (chunk_pipeline_registry.cpp) and kernel splitting's (carried_registry.cpp) traits, the
//! baselines they lack, and the entries pipeline_entries() lists.

#include <vector>

#include "registry_support.hpp"

namespace microsched::workloads::registry {

inline constexpr const char* pipeline_missing =
    "persistent threads and floor: the pipeline launches the program's own kernels, with no "
    "persistent driver and no divergence-free version of the loop";

[[nodiscard]] workload_traits pipeline_traits();

//! Waits for the device after a run whose work the host clock times.
void wait_for_device();

//! gafort, unwrap and blackscholes, on the chunk pipeline.
[[nodiscard]] std::vector<entry> chunk_pipeline_entries();

//! The loop-carried gafort, with kernel splitting.
[[nodiscard]] entry carried_entry();

}  // namespace microsched::workloads::registry
