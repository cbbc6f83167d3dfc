// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/calibration.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "microsched/error.hpp"
#include "microsched/schedule/step_counts.hpp"

namespace microsched {

// The candidates' figures and the commands that reproduce them: docs/decisions.md, "The
// automatic candidates" and "The budgeted strategy's budgets".
std::vector<schedule_arguments> automatic_candidates(bool switching,
                                                     const switching_arguments& switching_args,
                                                     bool budgetable, int block_threads) {
  if (block_threads < 32 || block_threads > 1024 || block_threads % 32 != 0) {
    throw_invalid("threads per block", block_threads, "must be a multiple of 32 in 32..1024");
  }
  std::vector<schedule_arguments> list;
  schedule_arguments direct;
  direct.strategy = pool_strategy::direct;
  direct.switching = switching_args;
  list.push_back(direct);
  // The direct mapping's other form, a grid-stride loop over 64-bit ids: the code generator
  // treats the two forms differently, by a few per cent either way (direct_kernel.cuh), and a
  // user's vanilla kernel may take either.
  schedule_arguments strided = direct;
  strided.strategy = pool_strategy::strided;
  list.push_back(strided);
  // Hybrid pools with the policy's default window: long tasks.
  schedule_arguments pools = direct;
  pools.strategy = pool_strategy::hybrid;
  pools.fetch = fetch_control::any();
  pools.chunk = 32;
  pools.deferral = 0;
  list.push_back(pools);
  if (!switching) {
    // Private pools of one task per grab: the most even spread of long, unequal tasks. A window
    // of 32 steps: a lane whose task ends waits half as long for its refill, and the extra
    // ballots cost less than that wait on these tasks.
    schedule_arguments spread = pools;
    spread.strategy = pool_strategy::global;
    spread.chunk = 1;
    spread.deferral = 32;
    list.push_back(spread);
    // Short tasks (tens of steps): a short window, so that a finished lane idles a few steps,
    // not up to 64, before the warp refills it.
    schedule_arguments short_tasks = pools;
    short_tasks.deferral = 8;
    list.push_back(short_tasks);
    // Static block pools: no global atomic per grab, the best listed setting on the escaping
    // Julia views at large sizes.
    schedule_arguments blocks = pools;
    blocks.strategy = pool_strategy::local;
    blocks.chunk = 4096;
    list.push_back(blocks);
    // Warp ranges of 16 tasks per lane, taken inside a window of 16 steps: the shortest tasks,
    // where a refill per task costs as much as the task. Steps of a few integer instructions
    // want a refill every 8 steps, heavier ones every 4, so both periods are timed. Short tasks
    // with a long tail run far slower than direct on them and drop them after one run.
    schedule_arguments runs = pools;
    runs.strategy = pool_strategy::stream;
    runs.chunk = 16;
    runs.deferral = 16;
    list.push_back(runs);
    schedule_arguments cheap_steps = runs;
    cheap_steps.period = long_stream_period;
    list.push_back(cheap_steps);
    if (budgetable) {
      // A direct pass of `budget` steps per task, then the survivors on private pools of one
      // task per grab, with the policy's window of 64. Short tasks with a long tail and long
      // unequal ones: the budget that wins depends on the lengths, so three are timed. The
      // shortest is 48: below it more tasks are still running than the survivor queue holds.
      schedule_arguments budgeted = pools;
      budgeted.strategy = pool_strategy::budgeted;
      budgeted.chunk = 1;
      for (const int budget : {48, 64, 128}) {
        budgeted.budget = budget;
        list.push_back(budgeted);
      }
      // Budget 64 with the survivors on half the automatic grid (512 threads per SM): a few long
      // chains of survivors wait less for their turn behind the other warps of their scheduler,
      // while many chains finish later.
      schedule_arguments few_warps = budgeted;
      few_warps.budget = 64;
      few_warps.blocks_per_sm = std::max(1, 512 / block_threads);
      list.push_back(few_warps);
    }
  }
  return list;
}

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
  if (validating_) return checked_ == 0 ? 0 : challenger_;
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

int calibration::timed_every() const {
  const double ms = decided() ? entries_[static_cast<std::size_t>(chosen_)].best_ms : 0;
  if (!(ms > 0)) return least_timed_every;
  const double every = std::ceil(settings_.timed_cost_ms / (settings_.timed_share * ms));
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
    if (chosen.best_ms == 0) {  // adopted without a time: this run is the reference
      chosen.best_ms = ms;
      if (verify_) {  // and the next runs check the choice
        verify_ = false;
        start_check(ms);
      }
      return;
    }
    const double calibrated = chosen.best_ms;
    const bool off = (ms > calibrated * settings_.drift || ms * settings_.drift < calibrated) &&
                     std::abs(ms - calibrated) > settings_.drift_floor_ms;
    drift_streak_ = off ? drift_streak_ + 1 : 0;
    // One run off: the next is timed at once to confirm, not timed_every() runs later.
    if (off && drift_streak_ < drift_runs) untimed_ = timed_every();
    if (drift_streak_ < drift_runs) return;
    drift_streak_ = 0;
    if (is_direct_form(candidate(chosen_).strategy)) {
      // Longer work may now reward another candidate; shorter work leaves it less to win.
      if (ms > calibrated) {
        restart();
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

void calibration::check_choice(double ms, std::uint64_t tasks) {
  if (!(ms > 0) || !std::isfinite(ms))
    throw_invalid("calibration time (ms)", ms, "must be positive");
  if (tasks == 0) throw_invalid("calibration tasks", tasks, "must be at least 1");
  if (!decided() || candidates_.size() == 1) return;
  ms *= static_cast<double>(reference_tasks_) / static_cast<double>(tasks);
  const double calibrated = entries_[static_cast<std::size_t>(chosen_)].best_ms;
  if (ms > calibrated * settings_.drift || ms * settings_.drift < calibrated) restart();
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
}

bool calibration::settled() const {
  if (!decided() || validating_ || verify_) return false;
  return candidates_.size() == 1 || entries_[static_cast<std::size_t>(chosen_)].best_ms > 0;
}

void calibration::start_check(double chosen_ms) {
  validating_ = true;
  drifted_ms_ = chosen_ms;
  checked_ = 0;
  challenger_ = challenger();
}

int calibration::challenger() const {
  // The runner-up of the last calibration among the other strategies (another budget or window
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
    if (budgeted && s.strategy == pool_strategy::global && s.chunk == 1) return i;
    if (!budgeted && s.strategy == pool_strategy::budgeted && s.blocks_per_sm == 0) return i;
  }
  return -1;
}

void calibration::check(int i, double ms) {
  if (checked_ == 0) {
    if (i != 0) return;
    direct_check_ms_ = ms;
    checked_ = 1;
    if (challenger_ > 0) return;  // the challenger's run comes next
  } else if (i != challenger_) {
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
    ++switches_;
    return;
  }
  if (drifted_ms_ < direct_check_ms_ * bar) {
    entries_[static_cast<std::size_t>(chosen_)].best_ms = drifted_ms_;  // the new reference
    ++revalidations_;
    return;
  }
  restart();
}

void calibration::drop_pools_on_short_call() {
  for (std::size_t i = 1; i < entries_.size(); ++i) {
    if (entries_[i].dropped) continue;
    entries_[i].dropped = true;
    entries_[i].why = "untimed: a call this short leaves less to win than timing costs";
  }
  chosen_ = 0;  // no second run of direct either: there is nothing left to compare
  untimed_ = 0;
}

void calibration::adopt(int i, double ms, std::uint64_t tasks, bool verify) {
  (void)candidate(i);
  if (!(ms >= 0) || !std::isfinite(ms))
    throw_invalid("calibration time (ms)", ms, "must be at least 0");
  if (tasks == 0) throw_invalid("calibration tasks", tasks, "must be at least 1");
  entries_.assign(candidates_.size(), entry{});
  reference_tasks_ = tasks;
  entries_[static_cast<std::size_t>(i)].best_ms = ms;
  chosen_ = i;
  untimed_ = 0;
  drift_streak_ = 0;
  validating_ = false;
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
    std::snprintf(buffer, sizeof buffer, "chose %s (%.3f ms, %.2fx direct)",
                  to_string(candidate(chosen_)).c_str(), c.best_ms,
                  c.best_ms > 0 ? entries_[0].best_ms / c.best_ms : 1.0);
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

namespace microsched {

predicted_form predict(const step_counts& counts, std::uint64_t tasks, double busy, double few) {
  if (tasks == 0 || counts.warp_slowest == 0) return predicted_form::direct;
  const double busy_share =
      static_cast<double>(counts.steps) / static_cast<double>(counts.warp_slowest);
  if (busy_share > busy) return predicted_form::direct;
  const double long_share = static_cast<double>(counts.over_budget) / static_cast<double>(tasks);
  return long_share <= few ? predicted_form::budgeted : predicted_form::pooled;
}

std::string describe(const step_counts& counts, std::uint64_t tasks) {
  char buffer[128];
  const double n = tasks > 0 ? static_cast<double>(tasks) : 1.0;
  std::snprintf(
      buffer, sizeof buffer, "%.1f steps a task, lanes busy %.0f%%, %.1f%% past %llu steps",
      static_cast<double>(counts.steps) / n,
      counts.warp_slowest > 0
          ? 100.0 * static_cast<double>(counts.steps) / static_cast<double>(counts.warp_slowest)
          : 100.0,
      100.0 * static_cast<double>(counts.over_budget) / n, step_counts::budget);
  return buffer;
}

}  // namespace microsched
