// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file calibration.hpp
//! The automatic schedule (pool_strategy::automatic) as pure host logic: which candidates are
//! timed, in which order, and which one is kept. The scheduler feeds it the times of real runs
//! (each run processes every task once, with one candidate), so calibrating costs no extra work,
//! only the difference between a candidate and the best on the runs that try it.
//!
//! The rules:
//! - The direct mapping (one thread per task: the user's own vanilla kernel) is candidate 0 and
//!   runs first, so a program that runs once runs at vanilla speed.
//! - Every candidate runs `rounds` times, interleaved; its time is the minimum of its runs. Where
//!   the direct mapping's first run is shorter than `short_run_ms`, its two forms run
//!   `short_rounds` times: on short runs a few microseconds of jitter are as much as the forms
//!   differ, and a wrong choice between them is the user's kernel made slower.
//! - A candidate slower than `drop_factor` x direct after one run is not tried again, so a bad
//!   candidate costs one run, and a candidate whose run fails is dropped with the reason.
//! - The direct mapping's two forms (direct, strided: the textbook kernel and the grid-stride
//!   loop): the faster of them is kept without a margin. Any other candidate wins only if it is
//!   the fastest and beats direct by more than `margin`, so the choice is never worse than
//!   vanilla, in whichever form the user wrote it, beyond the noise of the measurement.
//! - Once decided, runs of the chosen schedule are still timed: two runs in a row that take more
//!   than `drift` x (or less than 1/`drift` x) its calibrated time per task, and differ from it
//!   by more than `drift_floor_ms`, mean the work changed (other data, another view of the same
//!   program). The floor and the second run keep the timing noise of runs of a few microseconds
//!   from counting. A chosen non-direct schedule is then checked with one timed run of direct
//!   and one of a challenger (the runner-up, or the other predicted form): the challenger takes
//!   over where it beats both by the margin; the choice stays where it still beats direct, with
//!   its new time as the reference. Where direct wins, a choice that once saved S a run against
//!   direct (at a check) stays while direct wins by less than S x `keep_share` (ski rental: the
//!   work that changes back and forth pays it back), else direct takes over; a choice that never
//!   saved starts the calibration over, timing only the candidates that were within
//!   `restart_keep` of direct (all of them every `full_restart_every`-th time). A chosen direct
//!   form that got slower times the challenger once and then itself again: the challenger takes
//!   over where it beats both of direct's readings by the margin, else the calibration starts
//!   over; where the two readings differ by the drift factor the work changed during the check
//!   and direct stays; where direct got faster it stays.
//! - Once decided, one run in timed_every() is timed (next_run_timed()). A timed run records a
//!   CUDA event before its launch, which the host pays before the kernel starts: a few
//!   microseconds, a large share of the shortest runs, so short runs are timed more rarely
//!   (calibration_settings::timed_share), and a choice with no alternative (from a calibration
//!   file) is never timed.
//!
//! The figures behind the settings: docs/decisions.md, "The direct mapping's two forms" and
//! "Timing cadence".

#include <cstdint>
#include <string>
#include <vector>

#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched {

struct calibration_settings {
  int rounds = 2;            //!< runs per candidate (the minimum counts)
  double margin = 0.03;      //!< a candidate must beat direct by this fraction to be chosen
  double drop_factor = 1.5;  //!< after one run, slower than this x direct: not tried again
  double drift = 1.25;       //!< a decided choice this far off its time starts a new calibration
  //! ... and this far off in absolute terms: above the swing of short runs, so noise alone
  //! does not restart.
  double drift_floor_ms = 0.05;
  //! Below this time (ms) of the direct mapping's first run, its two forms run short_rounds
  //! times: the extra runs cost at most twice (short_rounds - rounds) times short_run_ms.
  double short_run_ms = 1.0;
  int short_rounds = 4;  //!< runs of each direct form on short runs (at least `rounds` count)
  //! Once decided, runs are timed rarely enough that their events cost at most this share of the
  //! chosen schedule's time on average, taking `timed_cost_ms` per timed run.
  double timed_share = 0.005;
  double timed_cost_ms = 0.005;  //!< what one timed run costs the caller, at most
  //! A calibration started over after a drift times again only the candidates within this
  //! factor of direct in the last calibration, so changing work costs no run of a candidate
  //! known to be far slower; every `full_restart_every`-th restart times them all.
  double restart_keep = 1.25;
  int full_restart_every = 4;
  //! Where the direct mapping's first run is shorter than this (ms), direct is kept untimed:
  //! the other candidates' fixed costs and the timing's own are more than they can win there; a
  //! drift to longer calls calibrates again.
  double short_call_ms = 0.05;
  //! A choice that saved S ms a run against direct on earlier work of its size class stays
  //! where direct beats it by less than S x keep_share a run: it earns that back if the earlier
  //! work returns once in 1 / keep_share runs (ski rental). Else direct takes over.
  double keep_share = 1.0 / 16;
};

//! Candidates of the automatic schedule for one policy, direct first. `switching`: a
//! managed-branch program (its own candidates: switching reorganises branches, not only ends).
//! `budgetable`: a plain program whose contexts the budgeted strategy can save (trivially
//! copyable). `block_threads`: the policy's threads per block, for a candidate whose grid is
//! given in threads per SM.
[[nodiscard]] std::vector<schedule_arguments> automatic_candidates(
    bool switching, const switching_arguments& switching_args = {}, bool budgetable = true,
    int block_threads = 128);

//! Problem sizes that share a calibration: tasks in [2^(k-1), 2^k) form class k.
[[nodiscard]] int size_class(std::uint64_t num_tasks);

class calibration {
 public:
  //! Timed runs in a row off the calibrated time that restart a decided calibration.
  static constexpr int drift_runs = 2;
  //! Once decided, the fewest and the most runs per timed run (timed_every()).
  static constexpr int least_timed_every = 4;
  static constexpr int most_timed_every = 1024;

  //! Throws std::invalid_argument for no candidates, rounds < 1, a margin outside [0, 1) or a
  //! drop factor below 1.
  calibration(std::vector<schedule_arguments> candidates, calibration_settings settings = {});

  //! The candidate the next run uses; the chosen one once decided().
  [[nodiscard]] int next() const;
  [[nodiscard]] bool decided() const { return chosen_ >= 0; }
  [[nodiscard]] int chosen() const { return chosen_; }
  [[nodiscard]] const schedule_arguments& candidate(int i) const;
  [[nodiscard]] int size() const { return static_cast<int>(candidates_.size()); }
  //! The fraction by which a candidate must beat direct to be chosen.
  [[nodiscard]] double margin() const { return settings_.margin; }
  //! Whether the next run is timed, counting it: every run while calibrating, one in
  //! timed_every() once decided (the first of them timed_every() runs after the decision), none
  //! where the choice has no alternative.
  [[nodiscard]] bool next_run_timed();
  //! Once decided with nothing to check: the runs from now until the next timed one, taken now
  //! as if next_run_timed() had said false for each, so a scheduler runs them without touching
  //! the shared state; 0 when the next run is timed.
  [[nodiscard]] int take_untimed_runs();

  //! Once decided, one run in this many is timed: timed_cost_ms over timed_share of the chosen
  //! schedule's calibrated time, within [least_timed_every, most_timed_every] (4 for runs of
  //! 0.25 ms or more, 12 for 0.09 ms, 84 for 0.012 ms with the default settings).
  [[nodiscard]] int timed_every() const;
  //! The same rule for a choice whose runs take `ms` (least_timed_every where none is known);
  //! the branch default (switching/form_calibration.hpp) times its choice by it too.
  [[nodiscard]] static int timed_every_for(double ms, const calibration_settings& s);

  //! The run of candidate `i` took `ms` milliseconds for `tasks` tasks (times are compared per
  //! task, so sizes of one size class compare). Once decided, a run of the chosen candidate is
  //! checked for drift instead. Throws std::invalid_argument for an index out of range, a time
  //! that is not positive and finite, or zero tasks.
  void record(int i, double ms, std::uint64_t tasks = 1);
  //! An explicit check that the work has not changed (scheduler::calibrate() on a decided size
  //! class): `ms`, the fastest of a few waited runs of the choice for `tasks` tasks, restarts the
  //! calibration when it is off the calibrated time by the drift factor. No floor and no second
  //! run here: a user asked to choose for this data, and a needless restart costs one
  //! calibration, where a missed one keeps a schedule chosen for other work (two views of one
  //! program can differ by little more than the floor). Same errors as record().
  void recalibrate_if_drifted(double ms, std::uint64_t tasks = 1);
  //! Calibrations started over because the chosen schedule's time drifted.
  [[nodiscard]] int restarts() const { return restarts_; }
  //! Direct was kept untimed because its first run was a short call (short_call_ms): no other
  //! candidate has a time here.
  [[nodiscard]] bool kept_for_short_calls() const { return chosen_ == 0 && short_call_; }
  //! Starts the calibration over (the calls a choice was made for are gone), as a drift does.
  void restart();
  //! Decided, with nothing left to check (no reference or check runs pending).
  [[nodiscard]] bool settled() const;
  //! Candidate `i` cannot run here (the reason is kept for the report). Direct cannot fail.
  void fail(int i, const std::string& why);
  //! Decides for candidate `i` without timing the others (a choice from the cache, or from slices
  //! of one call); `ms` for `tasks` tasks is its expected time, 0 when unknown (the next timed run
  //! sets it). Drift restarts it as usual.
  //! With `verify`, once its first timed run sets the reference, one run of direct checks it
  //! (as after a drift).
  void adopt(int i, double ms = 0, std::uint64_t tasks = 1, bool verify = false);

  //! Runs so far, and the time they took beyond what the best candidate would have taken.
  [[nodiscard]] int runs() const { return runs_; }
  [[nodiscard]] double extra_ms() const;
  //! "chose hybrid any chunk=32 deferral=auto (0.47 ms, 1.83x direct 0.86 ms) of 3 candidates
  //! in 6 runs; ..." — what was chosen and why, each candidate's best time or reason.
  [[nodiscard]] std::string report() const;

 private:
  struct entry {
    int runs = 0;
    double best_ms = 0;
    double total_ms = 0;
    bool dropped = false;
    bool sat_out = false;  //!< dropped untimed after a restart for its earlier time
    std::string why;       //!< why it was dropped
  };
  void decide_if_done();
  //! A choice adopted without a time takes `ms` (per reference task) as its time, and starts its
  //! check if the adoption asked for one; false when the choice already has a time.
  bool take_reference(double ms);
  //! After a drift of a chosen non-direct schedule (or an adopted one's first timed run): the
  //! next runs are direct's and one challenger's (challenger()); check() then keeps the choice
  //! (its drifted time the new reference), switches to the challenger, or restarts.
  void start_check(double chosen_ms);
  //! After a drift of a chosen direct form to longer work: its drifted run is direct's first
  //! reading; the challenger runs next, then direct once more (finish_direct_check()).
  void start_direct_check(double direct_ms);
  //! The challenger takes over where it beats both of direct's readings by the margin and those
  //! agree within the drift factor; where they do not, the work changed during the check and
  //! direct stays.
  void finish_direct_check(double direct_after_ms);
  void check(int i, double ms);
  //! The runner-up of the last calibration, else the other predicted form; -1 for none.
  [[nodiscard]] int challenger() const;
  //! The direct mapping's first run was a short call: drops every other candidate.
  void drop_pools_on_short_call();
  //! Runs candidate `i` takes before the decision.
  [[nodiscard]] int rounds_of(int i) const;

  std::vector<schedule_arguments> candidates_;
  calibration_settings settings_;
  std::vector<entry> entries_;
  int chosen_ = -1;
  int runs_ = 0;
  int restarts_ = 0;
  int drift_streak_ = 0;     //!< consecutive runs of the choice off its calibrated time
  bool validating_ = false;  //!< the next run is direct's, timed against the choice
  double drifted_ms_ = 0;    //!< the choice's time that started the validation
  int revalidations_ = 0;    //!< drifts after which the choice still won
  bool verify_ = false;      //!< an adopted choice: check it once its time is known
  int checked_ = 0;  //!< runs of the check done (direct, then challenger; then direct again)
  int challenger_ = -1;
  double direct_check_ms_ = 0;
  double challenger_ms_ = 0;           //!< the challenger's run in a chosen direct form's check
  int inconclusive_checks_ = 0;        //!< checks during which direct's time changed by the drift
  int switches_ = 0;                   //!< checks after which the challenger took over
  double saving_ms_ = 0;               //!< the most a non-direct choice saved a run against direct
  int kept_for_saving_ = 0;            //!< checks direct won by less than keep_share x saving
  int direct_takeovers_ = 0;           //!< checks after which direct took over
  int untimed_ = 0;                    //!< runs of the choice since its last timed run
  bool short_call_ = false;            //!< decided by drop_pools_on_short_call
  std::uint64_t reference_tasks_ = 0;  //!< times are scaled to this many tasks
};

}  // namespace microsched
