// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file timing_stats.hpp
//! Summary of repeated timings: median (what we report), min and max (the noise we keep).

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace microsched {

struct timing_options {
  int warmup = 2;       //!< untimed runs first (module load, clocks, caches)
  int repetitions = 7;  //!< timed runs; the median is reported
};

struct timing_stats {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int repetitions = 0;
};

//! Median (mean of the middle two for an even count), min and max. Throws on no samples.
[[nodiscard]] inline timing_stats summarize(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("timing: no samples to summarize");
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t n = samples_ms.size();
  const double median =
      n % 2 == 1 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
  return {median, samples_ms.front(), samples_ms.back(), static_cast<int>(n)};
}

}  // namespace microsched
