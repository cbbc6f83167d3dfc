// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file task_lengths.hpp
//! Statistics of steps per task, computed on the host: what decides whether scheduling pays.

#include <cstdint>
#include <vector>

namespace microsched::workloads {

struct task_length_stats {
  std::uint64_t tasks = 0;
  double mean = 0;
  std::uint32_t max = 0;
  std::uint32_t p99 = 0;  //!< 99th percentile
  //! Mean over warps (32 consecutive tasks, what a vanilla kernel runs together) of the warp's
  //! longest task, over the mean task: about what vanilla pays over the uniform-work floor.
  double warp_max_over_mean = 0;
};

//! Throws std::invalid_argument for an empty list.
[[nodiscard]] task_length_stats summarize_task_lengths(const std::vector<std::uint32_t>& steps);

}  // namespace microsched::workloads
