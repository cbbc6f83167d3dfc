// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file work_follower.hpp
//! Call-by-call decisions for a size class whose calls were too short to calibrate (the
//! calibration keeps direct untimed there), as pure host logic. Each direct run leaves its time
//! at no cost (call_signal.hpp), and its step counts after a long call; a run long enough to win
//! from rebalancing, whose steps predict the budgeted strategy or pooled forms (long tasks, idle
//! lanes) or were not counted, sends the next call to the budgeted strategy, timed; the budgeted
//! strategy stays while its calls stay long, and direct returns once a call is short. Work that
//! changes between short and long calls (an animation) is followed with one call of delay, where a
//! choice made once is wrong for half of the calls.
//!
//! It checks itself: the first budgeted call after a direct one must beat that direct call's
//! time by the margin, and every `check_every`-th budgeted call in a row gives one call back to
//! direct, which must not beat the budgeted call before it (else direct keeps that stretch of
//! long calls). Losses beyond the wins by `losses_allowed` stop the following for good. A
//! budgeted call whose time jumps (other work than the signal described) hands the next call
//! to direct, which reads the work again. Long direct calls it does not follow (their
//! steps predict no gain, or it stopped) ask for a calibration instead (wants_calibration()):
//! the calls are no longer short.

#include <cstdint>
#include <string>

#include "microsched/schedule/call_signal.hpp"

namespace microsched {

struct follow_settings {
  //! A call at least this long (ms) may gain from the budgeted strategy: its second launch
  //! costs a few microseconds, a large share of anything shorter.
  double budgeted_from_ms = 0.1;
  double margin = 0.03;  //!< what the budgeted strategy must win by to count as a win
  int check_every = 8;   //!< budgeted calls in a row between two direct checks
  int losses_allowed = 2;
  //! Long direct calls in a row, not followed, after which the calls are no longer short.
  int long_runs_to_calibrate = 8;
  //! A budgeted call this far off the call before it (either way) met other work: the next call
  //! runs direct, whose signal says what the work is now.
  double changed = 1.25;
  //! Short calls in a row after which only every `quiet_every`-th direct call leaves a signal:
  //! the sampled blocks cost about a microsecond a call, which work that stays short never
  //! pays back.
  int quiet_after = 64;
  int quiet_every = 4;
};

class work_follower {
 public:
  //! Throws std::invalid_argument for a setting out of range.
  explicit work_follower(follow_settings settings = {});

  //! The next call runs the budgeted strategy (else direct, with its signal).
  [[nodiscard]] bool budgeted_next() const { return budgeted_next_; }
  //! The next direct call's signal counts steps: after a long call, where the form of the work
  //! decides; short calls leave their time alone, which costs nothing on their critical path.
  [[nodiscard]] bool count_next() const { return last_long_; }
  //! A direct call now leaves its signal (every call, but every quiet_every-th one after
  //! quiet_after short calls in a row); counts the call.
  [[nodiscard]] bool signal_next();
  //! A direct run's signal (complete ones only).
  void on_direct(const call_signal& signal);
  //! A budgeted run's time.
  void on_budgeted(double ms);
  //! Long calls that the following does not take: the size class should calibrate again.
  [[nodiscard]] bool wants_calibration() const { return wants_calibration_; }
  //! Losses outran wins: direct from now on.
  [[nodiscard]] bool stopped() const { return stopped_; }

  [[nodiscard]] long long followed() const { return followed_; }  //!< budgeted calls so far
  [[nodiscard]] long long wins() const { return wins_; }
  [[nodiscard]] long long losses() const { return losses_; }
  //! "followed the work: 12 calls on the budgeted strategy after long calls (3 wins, 0 losses)"
  [[nodiscard]] std::string report() const;

 private:
  void score(bool win);

  follow_settings settings_;
  bool budgeted_next_ = false;
  bool first_budgeted_ = false;  //!< the next budgeted time is the first after a direct call
  bool checking_ = false;        //!< the next direct signal is a check among budgeted calls
  bool stopped_ = false;
  bool held_ = false;       //!< a check found direct faster: direct until the calls are short
  bool last_long_ = false;  //!< the last call read was long
  bool wants_calibration_ = false;
  double direct_ms_ = 0;    //!< the last direct call's time
  double budgeted_ms_ = 0;  //!< the last budgeted call's time
  int in_a_row_ = 0;        //!< budgeted calls since the last direct one
  int long_unfollowed_ = 0;
  int short_in_a_row_ = 0;
  int unsignalled_ = 0;     //!< quiet direct calls since the last signalled one
  long long followed_ = 0;  //!< 64-bit, as wins_ and losses_: a process may follow for days
  long long wins_ = 0;
  long long losses_ = 0;
};

}  // namespace microsched
