// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file copy_claimed.hpp
//! Gathers per-GPU outputs after a multi-GPU run: where each slot wrote into a buffer of its own
//! indexed by the global task id, the tasks it claimed hold its results, and copying those tasks
//! from each slot puts every task's result in one place.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "microsched/error.hpp"
#include "microsched/multi_gpu/claim_layout.hpp"
#include "microsched/multi_gpu/claim_plan.hpp"
#include "microsched/multi_gpu/device_slots.hpp"
#include "microsched/multi_gpu/multi_run.hpp"

namespace microsched::multi_gpu {

namespace detail {
//! Above this pitch in bytes a claim's runs are copied one by one (cudaMemcpy2D's pitch limit).
inline constexpr std::size_t most_copy_pitch = std::size_t{1} << 30;
}  // namespace detail

//! Copies `per_task` elements of T per task of every claim in claims[slot] (units of `layout`)
//! from slot_outputs[slot] (device memory of devices[slot]) to the same place of `destination`
//! (host, or device memory that the copy engine reaches). An interleaved claim's runs share a
//! pitch: one 2D copy each. Blocks until the copies are done. Throws std::invalid_argument when
//! the lists differ in length.
template <class T>
void copy_claimed(const claim_layout& layout, const std::vector<std::vector<claimed_range>>& claims,
                  const std::vector<int>& devices, const std::vector<const T*>& slot_outputs,
                  T* destination, std::size_t per_task = 1) {
  if (claims.size() != slot_outputs.size() || devices.size() != slot_outputs.size()) {
    throw_invalid("slot outputs", slot_outputs.size(), "must match the slots of the run");
  }
  const std::size_t task_bytes = per_task * sizeof(T);
  const auto copy = [&](std::size_t s, task_id first, task_id n) {
    const std::size_t at = static_cast<std::size_t>(first) * per_task;
    MICROSCHED_CUDA_TRY(cudaMemcpy(destination + at, slot_outputs[s] + at,
                                   static_cast<std::size_t>(n) * task_bytes, cudaMemcpyDefault));
  };
  const task_id stride = layout.interleaved() ? task_id{layout.period} << layout.shift : 0;
  const bool two_d = layout.interleaved() && stride * task_bytes <= detail::most_copy_pitch;
  const task_id whole_rows = two_d ? layout.count / stride : 0;
  for (std::size_t s = 0; s < claims.size(); ++s) {
    const device_guard on(devices[s]);
    for (const claimed_range& c : claims[s]) {
      if (!two_d) {
        layout.for_each_run(c, [&](task_id first, task_id n) { copy(s, first, n); });
        continue;
      }
      // The periods wholly inside the range in one 2D copy, the last, partial one after it.
      const task_id offset = c.first << layout.shift;
      const task_id width = c.count << layout.shift;
      if (whole_rows > 0) {
        const std::size_t at = static_cast<std::size_t>(offset) * per_task;
        const std::size_t pitch = static_cast<std::size_t>(stride) * task_bytes;
        MICROSCHED_CUDA_TRY(cudaMemcpy2D(destination + at, pitch, slot_outputs[s] + at, pitch,
                                         static_cast<std::size_t>(width) * task_bytes,
                                         static_cast<std::size_t>(whole_rows), cudaMemcpyDefault));
      }
      const task_id last = whole_rows * stride + offset;
      if (last < layout.count) copy(s, last, std::min(width, layout.count - last));
    }
  }
}

//! The claims of `run` (waited for), whose slots ran on `devices`.
template <class T>
void copy_claimed(const multi_run& run, const std::vector<int>& devices,
                  const std::vector<const T*>& slot_outputs, T* destination,
                  std::size_t per_task = 1) {
  copy_claimed(run.layout(), run.claims(), devices, slot_outputs, destination, per_task);
}

}  // namespace microsched::multi_gpu
