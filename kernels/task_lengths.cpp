// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "task_lengths.hpp"

#include <algorithm>
#include <stdexcept>

namespace microsched::workloads {

task_length_stats summarize_task_lengths(const std::vector<std::uint32_t>& steps) {
  if (steps.empty()) throw std::invalid_argument("task lengths: the list is empty");
  task_length_stats s;
  s.tasks = steps.size();
  double total = 0;
  double warp_total = 0;
  for (std::size_t w = 0; w < steps.size(); w += 32) {
    const auto last = steps.begin() + static_cast<std::ptrdiff_t>(std::min(steps.size(), w + 32));
    const auto first = steps.begin() + static_cast<std::ptrdiff_t>(w);
    for (auto it = first; it != last; ++it) total += *it;
    warp_total += *std::max_element(first, last);
  }
  const double warps = static_cast<double>((steps.size() + 31) / 32);
  s.mean = total / static_cast<double>(steps.size());
  s.max = *std::max_element(steps.begin(), steps.end());
  std::vector<std::uint32_t> sorted = steps;
  const std::size_t p99 = std::min(sorted.size() - 1, sorted.size() * 99 / 100);
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(p99), sorted.end());
  s.p99 = sorted[p99];
  s.warp_max_over_mean = s.mean > 0 ? warp_total / warps / s.mean : 1.0;
  return s;
}

}  // namespace microsched::workloads
