// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A decided calibration's check after its choice drifted: timed runs of direct and of a
// challenger decide whether the choice stays, the challenger takes over, direct does, or the
// calibration starts over.
#include <algorithm>

#include "microsched/schedule/calibration.hpp"

namespace microsched {

void calibration::start_check(double chosen_ms) {
  validating_ = true;
  drifted_ms_ = chosen_ms;
  checked_ = 0;
  challenger_ = challenger();
}

int calibration::challenger() const {
  // The runner-up of the last calibration among the other strategies (another budget or deferral
  // of the same strategy moves with the choice), if it timed one.
  int best = -1;
  const pool_strategy chosen_strategy = candidate(chosen_).strategy;
  for (int i = 1; i < size(); ++i) {
    const entry& e = entries_[static_cast<std::size_t>(i)];
    const pool_strategy s = candidate(i).strategy;
    if (i == chosen_ || e.dropped || e.runs == 0 || is_direct_form(s) || s == chosen_strategy) {
      continue;
    }
    if (best < 0 || e.best_ms < entries_[static_cast<std::size_t>(best)].best_ms) best = i;
  }
  if (best > 0) return best;
  // Else the other form of work step counts predict: private pools for the budgeted strategy,
  // the budgeted strategy for any other.
  const bool budgeted = candidate(chosen_).strategy == pool_strategy::budgeted;
  for (int i = 1; i < size(); ++i) {
    const schedule_arguments& s = candidate(i);
    if (i == chosen_) continue;
    if (budgeted && s.strategy == pool_strategy::private_pools && s.chunk == 1) return i;
    if (!budgeted && s.strategy == pool_strategy::budgeted && s.blocks_per_sm == 0) return i;
  }
  return -1;
}

void calibration::start_direct_check(double direct_ms) {
  start_check(direct_ms);
  direct_check_ms_ = direct_ms;  // direct's drifted run is its first reading
  checked_ = 1;                  // then the challenger, then direct once more
}

void calibration::finish_direct_check(double direct_after_ms) {
  validating_ = false;
  entries_[0].best_ms = direct_after_ms;  // direct's reference: its latest reading
  const double lower = std::min(direct_check_ms_, direct_after_ms);
  const double upper = std::max(direct_check_ms_, direct_after_ms);
  // Direct's readings before and after the challenger's run differ by the drift factor: the work
  // changed during the check, so the challenger's time compares with neither. Direct stays.
  if (upper > lower * settings_.drift) {
    ++inconclusive_checks_;
    return;
  }
  if (challenger_ms_ < lower * (1.0 - settings_.margin)) {
    chosen_ = challenger_;
    entries_[static_cast<std::size_t>(chosen_)].best_ms = challenger_ms_;
    saving_ms_ = std::max(saving_ms_, lower - challenger_ms_);
    ++switches_;
    return;
  }
  restart();  // longer work, and the challenger lost
}

void calibration::check(int i, double ms) {
  if (checked_ == 0) {
    if (i != 0) return;
    direct_check_ms_ = ms;
    checked_ = 1;
    if (challenger_ > 0) return;  // the challenger's run comes next
  } else if (checked_ == 2) {     // a chosen direct form's check: direct after the challenger
    if (i == 0) finish_direct_check(ms);
    return;
  } else if (i != challenger_) {
    return;
  } else if (is_direct_form(candidate(chosen_).strategy)) {
    challenger_ms_ = ms;
    checked_ = 2;
    return;
  }
  validating_ = false;
  const double bar = 1.0 - settings_.margin;
  const bool challenger_wins = checked_ == 1 && challenger_ > 0 && i == challenger_ &&
                               ms < drifted_ms_ * bar && ms < direct_check_ms_ * bar;
  entries_[0].best_ms = direct_check_ms_;
  if (challenger_wins) {
    chosen_ = challenger_;
    entries_[static_cast<std::size_t>(chosen_)].best_ms = ms;
    saving_ms_ = std::max(saving_ms_, direct_check_ms_ - ms);
    ++switches_;
    return;
  }
  if (drifted_ms_ < direct_check_ms_ * bar) {
    entries_[static_cast<std::size_t>(chosen_)].best_ms = drifted_ms_;  // the new reference
    saving_ms_ = std::max(saving_ms_, direct_check_ms_ - drifted_ms_);
    ++revalidations_;
    return;
  }
  if (saving_ms_ <= 0) {  // the choice never beat direct on drifted work: choose afresh
    restart();
    return;
  }
  // The work changes between what the choice wins and what direct wins. It stays while it
  // loses little against what it saved (ski rental); else direct, whose own drift to longer
  // work checks the challenger again.
  if (drifted_ms_ - direct_check_ms_ < saving_ms_ * settings_.keep_share) {
    entries_[static_cast<std::size_t>(chosen_)].best_ms = drifted_ms_;
    ++kept_for_saving_;
    return;
  }
  chosen_ = 0;
  ++direct_takeovers_;
}

}  // namespace microsched
