// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file step_statistics.hpp
//! What the steps per task say of a program's divergence (host logic, for measure_prize and
//! run_on_host).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "microsched/config.hpp"

namespace microsched {

//! The mean steps per task, the most, and the mean over warps (32 consecutive tasks) of the
//! warp's most, which is what a warp of the direct mapping pays: `warp_max_mean / mean` bounds
//! what removing the divergence can win.
struct step_statistics {
  double mean = 0;
  std::uint64_t max = 0;
  double warp_max_mean = 0;
  task_id longest_task = 0;  //!< the first task with the most steps
};

template <class Count>
[[nodiscard]] step_statistics summarize(const std::vector<Count>& steps) {
  step_statistics s;
  if (steps.empty()) return s;
  double sum = 0;
  double warp_sum = 0;
  std::size_t warps = 0;
  constexpr auto lanes = static_cast<std::size_t>(warp_size);
  for (std::size_t w = 0; w < steps.size(); w += lanes, ++warps) {
    std::uint64_t warp_max = 0;
    for (std::size_t t = w; t < steps.size() && t < w + lanes; ++t) {
      const auto n = static_cast<std::uint64_t>(steps[t]);
      sum += static_cast<double>(n);
      if (n > warp_max) warp_max = n;
      if (n > s.max) {
        s.max = n;
        s.longest_task = t;
      }
    }
    warp_sum += static_cast<double>(warp_max);
  }
  s.mean = sum / static_cast<double>(steps.size());
  s.warp_max_mean = warp_sum / static_cast<double>(warps);
  return s;
}

}  // namespace microsched
