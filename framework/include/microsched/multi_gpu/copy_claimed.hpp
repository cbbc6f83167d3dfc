// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file copy_claimed.hpp
//! Gathers per-GPU outputs after a multi-GPU run: where each slot wrote into a buffer of its own
//! indexed by the global task id, the ranges it claimed hold its results, and copying those
//! ranges from each slot puts every task's result in one place.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "microsched/error.hpp"
#include "microsched/multi_gpu/claim_plan.hpp"
#include "microsched/multi_gpu/device_slots.hpp"

namespace microsched::multi_gpu {

//! Copies `per_task` elements of T per task of every range in claims[slot] from
//! slot_outputs[slot] (device memory of devices[slot]) to the same place of `destination` (host,
//! or device memory that the copy engine reaches). Blocks until the copies are done. Throws
//! std::invalid_argument when the lists differ in length.
template <class T>
void copy_claimed(const std::vector<std::vector<claimed_range>>& claims,
                  const std::vector<int>& devices, const std::vector<const T*>& slot_outputs,
                  T* destination, std::size_t per_task = 1) {
  if (claims.size() != slot_outputs.size() || devices.size() != slot_outputs.size()) {
    throw_invalid("slot outputs", slot_outputs.size(), "must match the slots of the run");
  }
  for (std::size_t s = 0; s < claims.size(); ++s) {
    const device_guard on(devices[s]);
    for (const claimed_range& r : claims[s]) {
      const std::size_t first = static_cast<std::size_t>(r.first) * per_task;
      MICROSCHED_CUDA_TRY(cudaMemcpy(destination + first, slot_outputs[s] + first,
                                     static_cast<std::size_t>(r.count) * per_task * sizeof(T),
                                     cudaMemcpyDefault));
    }
  }
}

}  // namespace microsched::multi_gpu
