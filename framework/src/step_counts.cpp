// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/step_counts.hpp"

#include <cstdio>

namespace microsched {

predicted_form predict(const step_counts& counts, std::uint64_t tasks, double busy, double few) {
  if (tasks == 0 || counts.warp_slowest == 0) return predicted_form::direct;
  const double busy_share =
      static_cast<double>(counts.steps) / static_cast<double>(counts.warp_slowest);
  if (busy_share > busy) return predicted_form::direct;
  if (counts.over_budget == 0) return predicted_form::ranged;
  const double long_share = static_cast<double>(counts.over_budget) / static_cast<double>(tasks);
  return long_share <= few ? predicted_form::budgeted : predicted_form::pooled;
}

std::string describe(const step_counts& counts, std::uint64_t tasks) {
  char buffer[128];
  const double n = tasks > 0 ? static_cast<double>(tasks) : 1.0;
  std::snprintf(
      buffer, sizeof buffer, "%.1f steps a task, lanes busy %.0f%%, %.1f%% past %llu steps",
      static_cast<double>(counts.steps) / n,
      counts.warp_slowest > 0
          ? 100.0 * static_cast<double>(counts.steps) / static_cast<double>(counts.warp_slowest)
          : 100.0,
      100.0 * static_cast<double>(counts.over_budget) / n, step_counts::budget);
  return buffer;
}

}  // namespace microsched
