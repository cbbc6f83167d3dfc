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
  last_long_ = long_call;
  if (!long_call) held_ = false;
  // Capped: only whether it reached quiet_after matters, and a long run of calls must not wrap.
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
  budgeted_next_ = false;
  long_unfollowed_ = long_call ? long_unfollowed_ + 1 : 0;
  if (long_unfollowed_ >= settings_.long_runs_to_calibrate) wants_calibration_ = true;
}

bool work_follower::signal_next() {
  if (short_in_a_row_ < settings_.quiet_after || ++unsignalled_ >= settings_.quiet_every) {
    unsignalled_ = 0;
    return true;
  }
  return false;
}

void work_follower::on_budgeted(double ms) {
  ++followed_;
  const double before = first_budgeted_ ? direct_ms_ : budgeted_ms_;
  budgeted_ms_ = ms;
  last_long_ = ms >= settings_.budgeted_from_ms;
  // Longer than the direct call before it by the change factor: the work grew since the signal,
  // and the two times say nothing of each other. Else the first budgeted call scores.
  const bool changed = first_budgeted_
                           ? ms > before * settings_.changed
                           : ms > before * settings_.changed || ms * settings_.changed < before;
  if (first_budgeted_) {
    first_budgeted_ = false;
    if (!changed) score(ms < direct_ms_ * (1.0 - settings_.margin));
    if (stopped_) return;
  }
  if (ms < settings_.budgeted_from_ms || changed) {  // short or other work: direct's signal leads
    budgeted_next_ = false;
    return;
  }
  if (++in_a_row_ >= settings_.check_every) {
    budgeted_next_ = false;
    checking_ = true;
  }
}

std::string work_follower::report() const {
  char buffer[160];
  std::snprintf(
      buffer, sizeof buffer,
      "followed the work: %lld calls on the budgeted strategy after long calls (%lld wins, "
      "%lld losses%s)",
      followed_, wins_, losses_, stopped_ ? ", stopped" : "");
  return buffer;
}

}  // namespace microsched
