// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/work_follower.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "microsched/error.hpp"

namespace microsched {

work_follower::work_follower(follow_settings settings) : settings_(settings) {
  if (!(settings_.budgeted_from_ms > 0))
    throw_invalid("budgeted_from_ms", settings_.budgeted_from_ms, "must be positive");
  if (!(settings_.margin >= 0 && settings_.margin < 1))
    throw_invalid("follow margin", settings_.margin, "must be in [0, 1)");
  if (settings_.check_every < 1)
    throw_invalid("follow check period", settings_.check_every, "must be at least 1");
  if (settings_.losses_allowed < 1)
    throw_invalid("follow losses allowed", settings_.losses_allowed, "must be at least 1");
  if (!(settings_.changed > 1))
    throw_invalid("follow change factor", settings_.changed, "must be above 1");
  if (settings_.quiet_after < 1 || settings_.quiet_every < 1) {
    throw_invalid("follow quiet calls",
                  settings_.quiet_after < 1 ? settings_.quiet_after : settings_.quiet_every,
                  "must be at least 1");
  }
  if (!(settings_.rise == 0 || settings_.rise > 1))
    throw_invalid("follow rise", settings_.rise, "must be 0 (never) or above 1");
  if (settings_.rise_misses_allowed < 1) {
    throw_invalid("follow rise misses allowed", settings_.rise_misses_allowed,
                  "must be at least 1");
  }
  if (settings_.long_runs_to_calibrate < 1) {
    throw_invalid("follow long runs to calibrate", settings_.long_runs_to_calibrate,
                  "must be at least 1");
  }
}

void work_follower::score(bool win) {
  (win ? wins_ : losses_) += 1;
  if (losses_ >= wins_ + settings_.losses_allowed) {
    stopped_ = true;
    budgeted_next_ = false;
  }
}

void work_follower::on_direct(const call_signal& signal) {
  if (!signal.complete) return;
  direct_ms_ = signal.ms;
  in_a_row_ = 0;
  const bool long_call = signal.ms >= settings_.budgeted_from_ms;
  // A check among budgeted calls: direct, on the same kind of work, must not win by the margin;
  // where it does, direct keeps this stretch of long calls. A short check met other work.
  if (checking_) {
    checking_ = false;
    const bool direct_wins = signal.ms < budgeted_ms_ * (1.0 - settings_.margin);
    if (long_call) score(!direct_wins);
    held_ = long_call && direct_wins;
  }
  const bool after_long = last_long_;
  last_long_ = long_call;
  if (!long_call) held_ = false;
  short_in_a_row_ = long_call ? 0 : std::min(short_in_a_row_ + 1, settings_.quiet_after);
  // Uncounted (the call before was short): the budgeted call's time and the checks tell.
  const auto rebalancing = [&] {  // predicted for a long call only: a short one skips the code
    const predicted_form form = predict(signal.counts, signal.tasks);
    return form == predicted_form::budgeted || form == predicted_form::pooled;
  };
  if (long_call && (!signal.counted || rebalancing()) && !stopped_ && !held_) {
    budgeted_next_ = true;
    first_budgeted_ = true;
    long_unfollowed_ = 0;
    return;
  }
  // Work that grows before a long stretch: the budgeted call tells whether it came. The short
  // call right after a long one is the work shrinking, not growing.
  const bool rose = !long_call && rises(signal.ms);  // every short call joins the median
  if (rose && !after_long && !stopped_ &&
      rise_misses_ < rise_hits_ + settings_.rise_misses_allowed) {
    budgeted_next_ = true;
    first_budgeted_ = false;
    after_rise_ = true;
    long_unfollowed_ = 0;
    return;
  }
  budgeted_next_ = false;
  long_unfollowed_ = long_call ? long_unfollowed_ + 1 : 0;
  if (long_unfollowed_ >= settings_.long_runs_to_calibrate) wants_calibration_ = true;
}

bool work_follower::signal_next() {
  // A check, and the call after a long one, always read the work.
  if (checking_ || last_long_ || short_in_a_row_ < settings_.quiet_after ||
      ++unsignalled_ >= settings_.quiet_every) {
    unsignalled_ = 0;
    return true;
  }
  return false;
}

bool work_follower::rises(double ms) {
  bool rose = false;
  if (settings_.rise > 0 && recent_count_ >= 4) {
    // The median (the upper of the two middle values of an even count).
    std::array<double, recent_kept> sorted = recent_short_;
    const auto middle = sorted.begin() + recent_count_ / 2;
    std::nth_element(sorted.begin(), middle, sorted.begin() + recent_count_);
    rose = *middle > 0 && ms >= settings_.rise * *middle;
  }
  recent_short_[static_cast<std::size_t>(recent_next_)] = ms;
  recent_next_ = (recent_next_ + 1) % recent_kept;
  recent_count_ = std::min(recent_count_ + 1, recent_kept);
  return rose;
}

void work_follower::on_budgeted(double ms) {
  ++followed_;
  const double before = first_budgeted_ ? direct_ms_ : budgeted_ms_;
  budgeted_ms_ = ms;
  last_long_ = ms >= settings_.budgeted_from_ms;
  if (last_long_) short_in_a_row_ = 0;
  if (after_rise_) {  // neither a win nor a loss: the call before it was other work
    after_rise_ = false;
    (last_long_ ? rise_hits_ : rise_misses_) += 1;
  } else {
    // Longer than the direct call before it by the change factor: the work grew since the
    // signal, and the two times say nothing of each other. Else the first budgeted call scores.
    const bool changed = first_budgeted_
                             ? ms > before * settings_.changed
                             : ms > before * settings_.changed || ms * settings_.changed < before;
    if (first_budgeted_) {
      first_budgeted_ = false;
      if (!changed) score(ms < direct_ms_ * (1.0 - settings_.margin));
      if (stopped_) return;
    }
    if (changed) {  // other work: direct's signal leads
      budgeted_next_ = false;
      return;
    }
  }
  if (!last_long_) {  // short: direct's signal leads
    budgeted_next_ = false;
    return;
  }
  if (++in_a_row_ >= settings_.check_every) {
    budgeted_next_ = false;
    checking_ = true;
  }
}

std::string work_follower::report() const {
  char buffer[224];
  std::snprintf(buffer, sizeof buffer,
                "followed the work: %d calls on the budgeted strategy after long calls (%d wins, "
                "%d losses%s; rises: %d met long calls, %d did not)",
                followed_, wins_, losses_, stopped_ ? ", stopped" : "", rise_hits_, rise_misses_);
  return buffer;
}

}  // namespace microsched
