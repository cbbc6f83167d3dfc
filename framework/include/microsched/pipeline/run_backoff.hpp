// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file run_backoff.hpp
//! Backing off across runs: a pipelined run that ended slower than
//! the original loop is followed by runs of the original loop, twice as many after each loss in
//! a row, so a host where pipelining loses whatever the control does (cores or memory bandwidth
//! taken by another process) pays for one run in 1, 2, 4, ... instead of for every run.
//!
//! A run that could not gain (its control ended off before any chunk ran optimised) also backs
//! off: the next runs skip its profile. So does a run whose control ended off and that was not
//! faster than the original's estimate, however little it lost: what it paid before the switch
//! (profiles, a stall, drained queues) is sunk, and repeating it in every run within the
//! tolerance would keep the loop a few percent behind the original for good.
//!
//! Within a run the loss guard judges GPU steps against Torg; a loss it cannot see or bound
//! (the launching thread losing its core, Torg itself slowed by the helpers' memory traffic)
//! still shows in the run's wall time. The original loop's time is estimated as the chunks times
//! the smallest mean Torg seen so far, or measured: the wall time of the last run that launched
//! only originals (a run backed off, or one the host check stopped), whichever is smaller.
//! Pure logic, no clock: the pipeline passes the times in.

#include <algorithm>
#include <cstddef>

namespace microsched::pipeline {

class run_backoff {
 public:
  //! `tolerance`: a run slower than the original's estimate by more than this share is a loss.
  //! `max_runs`: the longest back-off, in runs (0: never back off).
  run_backoff(double tolerance, int max_runs) : tolerance_(tolerance), max_runs_(max_runs) {}

  //! Whether this run must launch the original loop; counts it down.
  [[nodiscard]] bool skip_run() noexcept {
    if (skip_left_ == 0) return false;
    --skip_left_;
    return true;
  }
  //! A run that launched only the original kernels took `run_ms` (wall) for `chunks` chunks.
  void original_run(double run_ms, std::size_t chunks) noexcept {
    if (run_ms > 0 && chunks > 0) original_chunk_ms_ = run_ms / static_cast<double>(chunks);
  }
  //! A pipelined run took `run_ms`; `original_mean_ms` is its mean original step (Torg, <= 0:
  //! none timed). `futile`: it could not gain (its control ended off with no chunk optimised,
  //! e.g. Black-Scholes, whose profile misses in every run): it counts as a loss whatever its
  //! time, so the profile's cost is paid in 1, 2, 4, ... runs only. `ended_off`: its control
  //! ended off; then any time above the estimate is a loss (no tolerance). Returns whether it was
  //! a loss (the next runs are then backed off).
  bool pipelined_run(double run_ms, double original_mean_ms, std::size_t chunks,
                     bool futile = false, bool ended_off = false) noexcept {
    if (original_mean_ms > 0)
      best_torg_ = best_torg_ > 0 ? std::min(best_torg_, original_mean_ms) : original_mean_ms;
    last_run_ms_ = run_ms;
    last_futile_ = futile;
    last_reference_ms_ = reference_ms(chunks);
    if (max_runs_ == 0 || (last_reference_ms_ <= 0 && !futile)) return false;
    const double tolerance = ended_off ? 0.0 : tolerance_;
    if (!futile && run_ms <= last_reference_ms_ * (1 + tolerance)) {
      next_skip_ = 1;
      return false;
    }
    skip_left_ = next_skip_;
    next_skip_ = std::min(2 * next_skip_, max_runs_);
    return true;
  }
  //! The original loop's estimated time for `chunks` chunks (ms; <= 0: nothing known yet).
  [[nodiscard]] double reference_ms(std::size_t chunks) const noexcept {
    const double n = static_cast<double>(chunks);
    double ref = best_torg_ > 0 ? best_torg_ * n : -1;
    if (original_chunk_ms_ > 0)
      ref = ref > 0 ? std::min(ref, original_chunk_ms_ * n) : original_chunk_ms_ * n;
    return ref;
  }
  //! The last pipelined run: its wall time, whether it was futile, and the original loop's
  //! estimate it was judged against (-1 before the first one).
  [[nodiscard]] double last_run_ms() const noexcept { return last_run_ms_; }
  [[nodiscard]] bool last_futile() const noexcept { return last_futile_; }
  [[nodiscard]] double last_reference_ms() const noexcept { return last_reference_ms_; }
  [[nodiscard]] int runs_left() const noexcept { return skip_left_; }

 private:
  double tolerance_;
  int max_runs_;
  int skip_left_ = 0;
  int next_skip_ = 1;
  double best_torg_ = -1;          // smallest mean Torg of a pipelined run
  double original_chunk_ms_ = -1;  // wall time per chunk of the last all-original run
  double last_run_ms_ = -1;
  bool last_futile_ = false;
  double last_reference_ms_ = -1;
};

}  // namespace microsched::pipeline
