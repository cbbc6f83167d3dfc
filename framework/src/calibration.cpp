// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/calibration.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "microsched/error.hpp"

namespace microsched {

// The candidates' figures and the commands that reproduce them: docs/decisions.md, "The
// automatic candidates" and "The budgeted strategy's budgets".
int size_class(std::uint64_t num_tasks) {
  return static_cast<int>(std::bit_width(num_tasks));
}

calibration::calibration(std::vector<schedule_arguments> candidates, calibration_settings settings)
    : candidates_(std::move(candidates)), settings_(settings) {
  if (candidates_.empty()) {
    throw std::invalid_argument(
        "calibration: no candidate schedules (the direct mapping at least)");
  }
  if (settings_.rounds < 1)
    throw_invalid("calibration rounds", settings_.rounds, "must be at least 1");
  if (!(settings_.margin >= 0 && settings_.margin < 1)) {
    throw_invalid("calibration margin", settings_.margin, "must be in [0, 1)");
  }
  if (!(settings_.drop_factor >= 1)) {
    throw_invalid("calibration drop factor", settings_.drop_factor, "must be at least 1");
  }
  if (!(settings_.drift > 1))
    throw_invalid("calibration drift", settings_.drift, "must be above 1");
  if (!(settings_.drift_floor_ms >= 0)) {
    throw_invalid("calibration drift floor (ms)", settings_.drift_floor_ms, "must be at least 0");
  }
  if (!(settings_.short_run_ms >= 0)) {
    throw_invalid("calibration short run (ms)", settings_.short_run_ms, "must be at least 0");
  }
  if (settings_.short_rounds < 1) {
    throw_invalid("calibration short rounds", settings_.short_rounds, "must be at least 1");
  }
  if (!(settings_.timed_share > 0 && settings_.timed_share <= 1)) {
    throw_invalid("calibration timed share", settings_.timed_share, "must be in (0, 1]");
  }
  if (!(settings_.timed_cost_ms >= 0)) {
    throw_invalid("calibration timed cost (ms)", settings_.timed_cost_ms, "must be at least 0");
  }
  if (!(settings_.restart_keep >= 1)) {
    throw_invalid("calibration restart keep factor", settings_.restart_keep, "must be at least 1");
  }
  if (settings_.full_restart_every < 1) {
    throw_invalid("calibration full restart period", settings_.full_restart_every,
                  "must be at least 1");
  }
  if (!(settings_.keep_share >= 0 && settings_.keep_share <= 1)) {
    throw_invalid("calibration keep share", settings_.keep_share, "must be in [0, 1]");
  }
  if (!(settings_.short_call_ms >= 0)) {
    throw_invalid("calibration short call (ms)", settings_.short_call_ms, "must be at least 0");
  }
  entries_.resize(candidates_.size());
  if (candidates_.size() == 1) chosen_ = 0;
}

const schedule_arguments& calibration::candidate(int i) const {
  if (i < 0 || i >= size()) throw_invalid("candidate", i, "out of range");
  return candidates_[static_cast<std::size_t>(i)];
}

int calibration::next() const {
  if (validating_) return checked_ == 1 ? challenger_ : 0;  // direct before (and after)
  if (decided()) return chosen_;
  // Interleaved rounds: the candidate with the fewest runs that is still in the race, the
  // lowest index first (direct leads every round).
  int best = -1;
  for (int i = 0; i < size(); ++i) {
    const entry& e = entries_[static_cast<std::size_t>(i)];
    if (e.dropped || e.runs >= rounds_of(i)) continue;
    if (best < 0 || e.runs < entries_[static_cast<std::size_t>(best)].runs) best = i;
  }
  return best < 0 ? 0 : best;
}

int calibration::rounds_of(int i) const {
  const entry& direct = entries_[0];
  const bool short_runs = direct.runs > 0 && direct.best_ms < settings_.short_run_ms;
  if (short_runs && is_direct_form(candidate(i).strategy)) {
    return std::max(settings_.rounds, settings_.short_rounds);
  }
  return settings_.rounds;
}

bool calibration::next_run_timed() {
  if (!decided() || validating_) return true;
  // An adopted choice without a time: its next run sets the reference.
  if (candidates_.size() > 1 && entries_[static_cast<std::size_t>(chosen_)].best_ms == 0) {
    return true;
  }
  if (candidates_.size() == 1) return false;  // nothing to switch to: record() ignores the time
  if (++untimed_ < timed_every()) return false;
  untimed_ = 0;
  return true;
}

int calibration::take_untimed_runs() {
  if (!decided() || validating_) return 0;
  if (candidates_.size() == 1) return most_timed_every;
  if (entries_[static_cast<std::size_t>(chosen_)].best_ms == 0) return 0;
  const int left = timed_every() - 1 - untimed_;
  if (left <= 0) return 0;
  untimed_ += left;
  return left;
}

int calibration::timed_every() const {
  return timed_every_for(decided() ? entries_[static_cast<std::size_t>(chosen_)].best_ms : 0,
                         settings_);
}

int calibration::timed_every_for(double ms, const calibration_settings& s) {
  if (!(ms > 0)) return least_timed_every;
  const double every = std::ceil(s.timed_cost_ms / (s.timed_share * ms));
  return static_cast<int>(std::clamp(every, static_cast<double>(least_timed_every),
                                     static_cast<double>(most_timed_every)));
}

void calibration::record(int i, double ms, std::uint64_t tasks) {
  (void)candidate(i);
  if (!(ms > 0) || !std::isfinite(ms))
    throw_invalid("calibration time (ms)", ms, "must be positive");
  if (tasks == 0) throw_invalid("calibration tasks", tasks, "must be at least 1");
  if (reference_tasks_ == 0) reference_tasks_ = tasks;
  ms *= static_cast<double>(reference_tasks_) / static_cast<double>(tasks);
  if (decided()) {
    if (validating_) {
      check(i, ms);
      return;
    }
    if (i != chosen_ || candidates_.size() == 1) return;
    entry& chosen = entries_[static_cast<std::size_t>(i)];
    if (take_reference(ms)) return;
    const double calibrated = chosen.best_ms;
    const bool off = (ms > calibrated * settings_.drift || ms * settings_.drift < calibrated) &&
                     std::abs(ms - calibrated) > settings_.drift_floor_ms;
    drift_streak_ = off ? drift_streak_ + 1 : 0;
    // One run off: the next is timed at once to confirm, not timed_every() runs later.
    if (off && drift_streak_ < drift_runs) untimed_ = timed_every();
    if (drift_streak_ < drift_runs) return;
    drift_streak_ = 0;
    if (is_direct_form(candidate(chosen_).strategy)) {
      // Longer work may now reward another candidate, first the challenger (one timed run),
      // else a new calibration; shorter work leaves it less to win.
      if (ms > calibrated) {
        if (challenger() > 0) {
          start_direct_check(ms);
        } else {
          restart();
        }
      } else {
        chosen.best_ms = ms;
      }
      return;
    }
    start_check(ms);
    return;
  }
  entry& e = entries_[static_cast<std::size_t>(i)];
  e.best_ms = e.runs == 0 ? ms : std::min(e.best_ms, ms);
  e.total_ms += ms;
  ++e.runs;
  ++runs_;
  const entry& direct = entries_[0];
  if (i == 0 && e.runs == 1 && direct.best_ms < settings_.short_call_ms) drop_pools_on_short_call();
  if (i != 0 && direct.runs > 0 && e.best_ms > settings_.drop_factor * direct.best_ms) {
    e.dropped = true;
    char why[96];
    std::snprintf(why, sizeof why, "%.2fx slower than direct after one run",
                  e.best_ms / direct.best_ms);
    e.why = why;
  }
  decide_if_done();
}

void calibration::recalibrate_if_drifted(double ms, std::uint64_t tasks) {
  if (!(ms > 0) || !std::isfinite(ms))
    throw_invalid("calibration time (ms)", ms, "must be positive");
  if (tasks == 0) throw_invalid("calibration tasks", tasks, "must be at least 1");
  if (!decided() || candidates_.size() == 1) return;
  if (reference_tasks_ == 0) reference_tasks_ = tasks;
  ms *= static_cast<double>(reference_tasks_) / static_cast<double>(tasks);
  if (take_reference(ms)) return;
  const double calibrated = entries_[static_cast<std::size_t>(chosen_)].best_ms;
  if (ms > calibrated * settings_.drift || ms * settings_.drift < calibrated) restart();
}

bool calibration::take_reference(double ms) {
  entry& chosen = entries_[static_cast<std::size_t>(chosen_)];
  if (chosen.best_ms != 0) return false;
  chosen.best_ms = ms;
  if (verify_) {  // and the next runs check the choice
    verify_ = false;
    start_check(ms);
  }
  return true;
}

void calibration::restart() {
  ++restarts_;
  validating_ = false;
  verify_ = false;
  // Candidates far slower than direct last time sit this calibration out (but every
  // full_restart_every-th), so changing work is not paid for with runs known to lose.
  const bool full = restarts_ % settings_.full_restart_every == 0;
  std::vector<entry> fresh(candidates_.size());
  const double direct_ms = entries_[0].best_ms;
  for (std::size_t i = 1; i < entries_.size(); ++i) {
    const entry& old = entries_[i];
    // Dropped untimed (a short call, a failure) is no verdict: such a candidate runs again;
    // one that sat the last calibration out for its time still carries that verdict.
    const bool slow =
        old.sat_out ||
        (old.runs > 0 &&
         (old.dropped || (direct_ms > 0 && old.best_ms > settings_.restart_keep * direct_ms)));
    if (!full && slow && !is_direct_form(candidates_[i].strategy)) {
      fresh[i].dropped = true;
      fresh[i].sat_out = true;
      fresh[i].why = "far slower than direct before the work changed";
    }
  }
  entries_ = std::move(fresh);
  drift_streak_ = 0;
  chosen_ = -1;
  runs_ = 0;
  reference_tasks_ = 0;
  short_call_ = false;
}

bool calibration::settled() const {
  if (!decided() || validating_ || verify_) return false;
  return candidates_.size() == 1 || entries_[static_cast<std::size_t>(chosen_)].best_ms > 0;
}

void calibration::drop_pools_on_short_call() {
  for (std::size_t i = 1; i < entries_.size(); ++i) {
    if (entries_[i].dropped) continue;
    entries_[i].dropped = true;
    entries_[i].why = "untimed: a call this short leaves less to win than timing costs";
  }
  chosen_ = 0;  // no second run of direct either: there is nothing left to compare
  untimed_ = 0;
  short_call_ = true;
}

void calibration::adopt(int i, double ms, std::uint64_t tasks, bool verify) {
  (void)candidate(i);
  if (!(ms >= 0) || !std::isfinite(ms))
    throw_invalid("calibration time (ms)", ms, "must be at least 0");
  if (tasks == 0) throw_invalid("calibration tasks", tasks, "must be at least 1");
  entries_.assign(candidates_.size(), entry{});
  reference_tasks_ = ms > 0 ? tasks : 0;  // without a time, the first reading sets both
  entries_[static_cast<std::size_t>(i)].best_ms = ms;
  chosen_ = i;
  untimed_ = 0;
  drift_streak_ = 0;
  validating_ = false;
  short_call_ = false;
  verify_ = verify && i != 0;
}

void calibration::fail(int i, const std::string& why) {
  if (i == 0)
    throw std::invalid_argument("calibration: the direct mapping cannot be dropped: " + why);
  (void)candidate(i);
  entry& e = entries_[static_cast<std::size_t>(i)];
  e.dropped = true;
  e.why = why;
  decide_if_done();
}

void calibration::decide_if_done() {
  if (decided()) return;
  for (int i = 0; i < size(); ++i) {
    const entry& e = entries_[static_cast<std::size_t>(i)];
    if (!e.dropped && e.runs < rounds_of(i)) return;
  }
  // Either form of the direct mapping runs the user's kernel as it stands, so the faster of the
  // two is kept without a margin. Any other candidate must beat direct itself by the margin:
  // against the faster of two noisy forms the bar sits low by the noise.
  const auto timed = [&](int i) {
    const entry& e = entries_[static_cast<std::size_t>(i)];
    return !e.dropped && e.runs > 0;
  };
  const auto ms = [&](int i) { return entries_[static_cast<std::size_t>(i)].best_ms; };
  int reference = 0;
  int best = 0;
  for (int i = 1; i < size(); ++i) {
    if (!timed(i)) continue;
    if (is_direct_form(candidate(i).strategy) && ms(i) < ms(reference)) reference = i;
    if (ms(i) < ms(best)) best = i;
  }
  const bool clear =
      is_direct_form(candidate(best).strategy) || ms(best) < ms(0) * (1.0 - settings_.margin);
  chosen_ = clear ? best : reference;
  untimed_ = 0;
}

}  // namespace microsched
