// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/pipeline/statistics.hpp"

#include <cstdio>
#include <ostream>
#include <sstream>

namespace microsched::pipeline {

const char* to_string(fallback f) noexcept {
  switch (f) {
    case fallback::none:
      return "-";
    case fallback::warm_up:
      return "warm-up";
    case fallback::not_ready:
      return "not-ready";
    case fallback::transform_failed:
      return "transform-failed";
    case fallback::controller_off:
      return "controller-off";
    case fallback::memory_cap:
      return "memory-cap";
    case fallback::slot_busy:
      return "slot-busy";
    case fallback::chunk_share:
      return "chunk-share";
    case fallback::awaiting_profile:
      return "awaiting-profile";
    case fallback::host_busy:
      return "host-busy";
    case fallback::backoff:
      return "backoff";
  }
  return "?";
}

std::size_t pipeline_statistics::optimised_count() const {
  std::size_t n = 0;
  for (const auto& r : iterations) n += r.optimised ? 1 : 0;
  return n;
}

std::string pipeline_statistics::summary() const {
  std::ostringstream s;
  s << "method=" << (method.empty() ? "none (memory cap)" : method);
  if (!method_note.empty()) s << " [" << method_note << "]";
  if (!profiling.empty()) s << " profiling=" << profiling;
  s << " host=" << host_bytes << "B device=" << device_bytes << "B limit=" << memory_limit
    << "B slots=" << slots << " depth=" << depth << " helpers=" << helpers_active << "/"
    << helper_threads;
  if (host_others >= 0) s << " (host: " << host_others << " other runnable)";
  s << " optimised=" << optimised_count() << "/" << iterations.size()
    << " control=" << controller_state;
  if (!controller_reason.empty()) s << " (" << controller_reason << ")";
  return s.str();
}

void pipeline_statistics::print(std::ostream& out) const {
  out << summary() << "\n";
  out << "iter kernel     r     s  transform_ms  kernel_ms    step_ms  launch_ms  remap_end  "
         "before        after         note\n";
  char line[256];
  for (const auto& r : iterations) {
    std::snprintf(line, sizeof line,
                  "%4zu %-9s %5.2f %2d %13.3f %10.3f %10.3f %10.3f %10.3f  %-13.4g %-13.4g %s",
                  r.iteration, r.optimised ? "optimised" : "original", r.ratio, r.segments,
                  r.transform_ms, r.kernel_ms, r.step_ms, r.launch_ms, r.transform_end_ms,
                  r.metric_before, r.metric_after, to_string(r.reason));
    out << line;
    if (!r.error.empty()) out << " error: " << r.error;
    out << "\n";
  }
}

}  // namespace microsched::pipeline
