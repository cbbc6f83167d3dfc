// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a calibration says of itself: its cost beyond the best candidate and its report line.
#include <cstdio>
#include <string>

#include "microsched/schedule/calibration.hpp"

namespace microsched {

double calibration::extra_ms() const {
  double best = 0;
  for (const entry& e : entries_) {
    if (e.runs > 0 && (best == 0 || e.best_ms < best)) best = e.best_ms;
  }
  double extra = 0;
  for (const entry& e : entries_) extra += e.total_ms - best * e.runs;
  return extra;
}

std::string calibration::report() const {
  char buffer[160];
  std::string out;
  if (decided()) {
    const entry& c = entries_[static_cast<std::size_t>(chosen_)];
    const double direct_ms = entries_[0].best_ms;
    if (c.best_ms == 0) {  // adopted, not yet timed
      std::snprintf(buffer, sizeof buffer, "chose %s (not timed yet)",
                    to_string(candidate(chosen_)).c_str());
    } else if (direct_ms == 0) {
      std::snprintf(buffer, sizeof buffer, "chose %s (%.3f ms; direct not timed)",
                    to_string(candidate(chosen_)).c_str(), c.best_ms);
    } else {
      std::snprintf(buffer, sizeof buffer, "chose %s (%.3f ms, %.2fx direct)",
                    to_string(candidate(chosen_)).c_str(), c.best_ms, direct_ms / c.best_ms);
    }
    out = buffer;
  } else {
    out = "calibrating";
  }
  std::snprintf(buffer, sizeof buffer, " after %d runs (%.3f ms beyond the best", runs_,
                extra_ms());
  out += buffer;
  if (restarts_ > 0) out += ", " + std::to_string(restarts_) + " restarts after a drift";
  if (revalidations_ > 0)
    out += ", kept after " + std::to_string(revalidations_) + " checks against direct";
  if (switches_ > 0) out += ", " + std::to_string(switches_) + " switches to a faster challenger";
  if (kept_for_saving_ > 0) {
    out += ", kept after " + std::to_string(kept_for_saving_) +
           " checks that direct won by less than its earlier saving allows";
  }
  if (direct_takeovers_ > 0) out += ", " + std::to_string(direct_takeovers_) + " returns to direct";
  if (inconclusive_checks_ > 0) {
    out += ", " + std::to_string(inconclusive_checks_) +
           " checks inconclusive (direct's time changed during the check)";
  }
  out += ");";
  for (int i = 0; i < size(); ++i) {
    const entry& e = entries_[static_cast<std::size_t>(i)];
    out += " " + to_string(candidate(i)) + ": ";
    if (e.runs > 0) {
      std::snprintf(buffer, sizeof buffer, "%.3f ms", e.best_ms);
      out += buffer;
    } else {
      out += "not run";
    }
    if (e.dropped) out += " (dropped: " + e.why + ")";
    out += i + 1 < size() ? ";" : "";
  }
  return out;
}

}  // namespace microsched
