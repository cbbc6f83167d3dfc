// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file poll_pause.hpp
//! How the thread that launches kernels waits between two stream or event queries.
//!
//! Why it can sleep instead of yielding (pipeline_arguments::poll_interval): on a host whose cores
//! are all busy (another process, or the pipeline's own helpers), sched_yield hands the core to a
//! runnable thread for a whole scheduler slice, longer than a chunk's kernel (docs/decisions.md,
//! "The pipeline's host check"). A thread that sleeps instead leaves its core to the helpers
//! and, waking with little CPU time used, preempts them (or anyone) at once. Linux rounds a sleep
//! up by the thread's timer slack, more than a poll step may cost, so the launching thread's
//! slack is lowered while it polls.
//! Both drivers (chunk_pipeline, split_loop) poll through one `poller`.

#include <chrono>
#include <optional>
#include <thread>

#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace microsched::pipeline::detail {

//! Sleeps `interval`; an interval of 0 yields instead.
inline void poll_pause(std::chrono::microseconds interval) {
  if (interval.count() > 0)
    std::this_thread::sleep_for(interval);
  else
    std::this_thread::yield();
}

//! Lowers the calling thread's timer slack for its lifetime and restores it after (Linux only;
//! elsewhere, or when refused, it does nothing: the sleeps are then merely coarser).
class scoped_timer_slack {
 public:
  explicit scoped_timer_slack(std::chrono::nanoseconds slack) {
#if defined(__linux__)
    const int previous = ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    if (previous > 0 &&
        ::prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(slack.count()), 0, 0, 0) == 0)
      previous_ = previous;
#else
    (void)slack;
#endif
  }
  ~scoped_timer_slack() {
#if defined(__linux__)
    if (previous_ > 0)
      (void)::prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(previous_), 0, 0, 0);
#endif
  }
  scoped_timer_slack(const scoped_timer_slack&) = delete;
  scoped_timer_slack& operator=(const scoped_timer_slack&) = delete;

 private:
  int previous_ = 0;  // 0: nothing to restore
};

//! The launching thread's pause between two queries, for the length of one run: with a sleep
//! interval, the thread's timer slack is one microsecond until the poller is destroyed.
class poller {
 public:
  explicit poller(std::chrono::microseconds interval) : interval_(interval) {
    if (interval.count() > 0) slack_.emplace(std::chrono::nanoseconds{1000});
  }
  void pause() const { poll_pause(interval_); }

 private:
  std::chrono::microseconds interval_;
  std::optional<scoped_timer_slack> slack_;
};

}  // namespace microsched::pipeline::detail
