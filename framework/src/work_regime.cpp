// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/work_regime.hpp"

#include <algorithm>

#include "microsched/error.hpp"

namespace microsched {

work_regime::work_regime(work_regime_settings settings) : settings_(settings) {
  if (!(settings_.long_factor >= 1)) {
    throw_invalid("work_regime long_factor", settings_.long_factor, "must be at least 1");
  }
  if (!(settings_.long_floor_ms >= 0)) {
    throw_invalid("work_regime long_floor_ms", settings_.long_floor_ms, "must not be negative");
  }
  if (!(settings_.margin >= 0 && settings_.margin < 1)) {
    throw_invalid("work_regime margin", settings_.margin, "must be in [0, 1)");
  }
}

double work_regime::long_ms(double reference_ms) const {
  return std::max(settings_.long_factor * reference_ms, settings_.long_floor_ms);
}

void work_regime::direct_ran(double ms, double reference_ms) {
  const bool now_long = ms >= long_ms(reference_ms);
  if (now_long && !long_) ++stretches_;
  if (!now_long) gave_up_ = false;
  long_ = now_long;
  if (now_long) direct_long_ms_ = ms;
}

void work_regime::long_ran(double ms, double reference_ms) {
  const bool now_long = ms >= long_ms(reference_ms);
  if (!now_long) {  // the stretch is over (or the long-work form shortens it below the bar)
    long_ = false;
    gave_up_ = false;
    return;
  }
  long_ = true;
  // The readings miss a direct run's last blocks, so only a run slower than them by the margin
  // is known to be slower than direct.
  if (direct_long_ms_ > 0 && ms > (1 + settings_.margin) * direct_long_ms_) {
    gave_up_ = true;
    ++given_back_;
  }
}

}  // namespace microsched
