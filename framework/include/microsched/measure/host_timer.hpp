// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file host_timer.hpp
//! Times work on the host's steady clock, for work whose time is a host loop's (the pipeline,
//! helper threads): the warm-up, repetitions and median of event_timer.hpp, without events.

#include <chrono>
#include <functional>
#include <utility>
#include <vector>

#include "microsched/error.hpp"
#include "microsched/measure/timing_stats.hpp"

namespace microsched {

//! Milliseconds `run` takes on the host clock; `run` must wait for its own GPU work.
template <class Run>
[[nodiscard]] double host_ms(Run&& run) {
  const auto start = std::chrono::steady_clock::now();
  std::forward<Run>(run)();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

//! `options.warmup` untimed runs, then `options.repetitions` timed ones: each one's milliseconds.
//! `before` (untimed, may be empty) runs before every run, warm-up included.
[[nodiscard]] inline std::vector<double> host_samples(const std::function<void()>& run,
                                                      const timing_options& options,
                                                      const std::function<void()>& before = {}) {
  if (options.repetitions < 1) throw_invalid("repetitions", options.repetitions, "must be >= 1");
  for (int i = 0; i < options.warmup; ++i) {
    if (before) before();
    run();
  }
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(options.repetitions));
  for (int i = 0; i < options.repetitions; ++i) {
    if (before) before();
    samples.push_back(host_ms(run));
  }
  return samples;
}

//! The median, min and max of host_samples().
[[nodiscard]] inline timing_stats time_on_host(const std::function<void()>& run,
                                               const timing_options& options,
                                               const std::function<void()>& before = {}) {
  return summarize(host_samples(run, options, before));
}

}  // namespace microsched
