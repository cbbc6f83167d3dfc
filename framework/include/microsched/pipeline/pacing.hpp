// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file pacing.hpp
//! When the thread that launches kernels stops waiting, as pure functions of what it has seen,
//! so the rules are tested on the host. The driver (chunk_pipeline.hpp) feeds them its stream
//! queries and the host clock.
//!
//! After launching chunk i, the paper's main thread copies chunk i+1's finished segments and
//! waits until chunk i+1's copy is ready or the GPU is done with chunk i (zhang2011 Figure 6,
//! gs_checkRemap). A chunk whose remap is not ready is then launched on an empty GPU queue, which
//! idles for the launch latency, a visible share of a short kernel's iteration. So:
//! - partial methods keep the paper's pacing (their profiling needs kernel i's time before more
//!   chunks are submitted at the profiling ratio);
//! - whole-chunk methods with Δ >= 2 keep one chunk queued (`queue_ahead`): a ready chunk i+1
//!   still waits until kernel i-1 has ended, so the host never runs more than two launches ahead
//!   of the GPU (a host far ahead finds every slot still waiting for its last kernel);
//! - whole-chunk methods decide chunk i+1 just in time: once kernel i-1 has ended (kernel i
//!   started), they wait until kernel i is expected to end less a margin (its mean time less
//!   pacing_margin_ns), so a remap of chunk i+1 has the whole of kernel i and the GPU queue still
//!   never drains.

#include <algorithm>

namespace microsched::pipeline {

//! Whether a whole-chunk method keeps one chunk queued on the GPU (Δ >= 2).
[[nodiscard]] constexpr bool queue_ahead(bool whole_chunks, int depth) noexcept {
  return whole_chunks && depth >= 2;
}

//! The time kernel i is expected to take, for just-in-time pacing: the mean optimised kernel
//! (`topt_ms`) or original kernel (`torg_ms`) time; -1 (no just-in-time wait) for partial methods,
//! when no kernel i-1 was timed, or when no such time is known yet.
[[nodiscard]] constexpr double expected_kernel_ms(bool whole_chunks, bool previous_timed,
                                                  bool optimised, double topt_ms,
                                                  double torg_ms) noexcept {
  if (!whole_chunks || !previous_timed) return -1;
  return optimised ? topt_ms : torg_ms;
}

//! The margin before the expected end, in ns: a fifth of the expected time, at least 20
//! microseconds (a launch's latency).
[[nodiscard]] constexpr long long pacing_margin_ns(double expected_ms) noexcept {
  return static_cast<long long>(std::max(0.02, 0.2 * expected_ms) * 1e6);
}

//! How the wait after launching chunk i is paced (fixed for that wait).
struct pacing_plan {
  bool whole_chunks = false;
  bool profiling = false;       //!< a partial method is profiling: wait for kernel i itself
  bool previous_timed = false;  //!< kernel i-1 has an end event
  double expected_ms = -1;      //!< expected_kernel_ms(); <= 0: no just-in-time wait
  long long margin_ns = 0;      //!< pacing_margin_ns(expected_ms)
};

//! What one poll saw.
struct pacing_view {
  bool next_ready = false;     //!< chunk i+1 can run optimised now
  bool previous_ended = true;  //!< kernel i-1 ended (true when it was not timed)
  bool current_ended = false;  //!< kernel i ended
  bool waited_ended = true;    //!< the kernel the paper's pacing waits for ended (true: none)
  long long now_ns = 0;        //!< host clock
};

//! One wait after a launch: done() says whether to stop, poll after poll.
class launch_pacer {
 public:
  explicit constexpr launch_pacer(const pacing_plan& plan) noexcept : plan_(plan) {}

  [[nodiscard]] constexpr bool done(const pacing_view& v) noexcept {
    const bool in_order = !plan_.whole_chunks || !plan_.previous_timed || v.previous_ended;
    if (!plan_.profiling && v.next_ready && in_order) return true;
    if (plan_.expected_ms > 0) {
      if (started_ns_ < 0 && v.previous_ended) started_ns_ = v.now_ns;  // kernel i started
      const auto expected_ns = static_cast<long long>(plan_.expected_ms * 1e6);
      if (started_ns_ >= 0 && v.now_ns >= started_ns_ + expected_ns - plan_.margin_ns) return true;
      return v.current_ended;
    }
    return v.waited_ended;  // GPU done with chunk i (queue_ahead: with chunk i-1)
  }

 private:
  pacing_plan plan_;
  long long started_ns_ = -1;  // host time kernel i-1 was first seen ended
};

}  // namespace microsched::pipeline
