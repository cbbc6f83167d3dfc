// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file transform_task.hpp
//! What the helper threads of one transformation share with the thread that launches kernels,
//! for both drivers (chunk_pipeline and split_loop): the piece bounds, each piece's outcome, the
//! cancel flag, the first error, and the helpers' wall time. And the guard that stops the helpers
//! before a driver's run() returns, so no helper touches the program afterwards.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "microsched/pipeline/chunk_program.hpp"
#include "microsched/pipeline/statistics.hpp"
#include "microsched/pipeline/worker_pool.hpp"

namespace microsched::pipeline::detail {

//! The host clock both drivers time transformations and launches with.
[[nodiscard]] inline long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

//! A backend that keeps its own host clock (a test's scripted one): `now_ns()`, in ns, callable
//! from any thread.
template <class Backend>
concept has_host_clock = requires(Backend& b) {
  { b.now_ns() } -> std::convertible_to<long long>;
};

//! The host clock a driver over `Backend` reads: the backend's own where it has one, else
//! steady_clock (now_ns()).
template <class Backend>
[[nodiscard]] long long host_now_ns(Backend& backend) {
  if constexpr (has_host_clock<Backend>)
    return backend.now_ns();
  else
    return now_ns();
}

//! One transformation cut into pieces, each run by one helper.
struct transform_task {
  std::vector<std::size_t> bounds;          // (pieces + 1) piece boundaries
  std::vector<transform_outcome> outcomes;  // one per piece, written by that piece only
  std::atomic<bool> cancel{false};
  std::atomic<bool> failed{false};
  std::atomic<long long> start_ns{0};  // first piece's start (0: none started)
  std::atomic<long long> end_ns{0};    // latest piece's end
  std::mutex error_mutex;
  std::string error;  // the first exception's text
  //! The host clock the pieces are timed with (set before the pieces are submitted); empty:
  //! now_ns().
  std::function<long long()> clock;

  [[nodiscard]] long long now() const { return clock ? clock() : now_ns(); }

  //! The launch went on without this transformation: pieces not started return at once.
  void abandon() noexcept { cancel.store(true, std::memory_order_release); }
  [[nodiscard]] bool has_failed() const noexcept { return failed.load(std::memory_order_acquire); }

  //! Runs piece `piece` through `transform` (a callable returning its transform_outcome) unless
  //! the task was cancelled: times it, keeps its outcome, and turns an exception into `failed`
  //! with its text (the other pieces are cancelled, the chunk runs the original kernel).
  template <class Transform>
  void run_piece(std::size_t piece, Transform&& transform) {
    if (cancel.load(std::memory_order_acquire)) return;
    long long expected = 0;
    start_ns.compare_exchange_strong(expected, now(), std::memory_order_acq_rel);
    try {
      outcomes[piece] = std::forward<Transform>(transform)();
    } catch (const std::exception& e) {
      fail(e.what());
    } catch (...) {
      fail("unknown exception in the transformation");
    }
    const long long end = now();
    long long seen = end_ns.load(std::memory_order_relaxed);
    while (seen < end && !end_ns.compare_exchange_weak(seen, end, std::memory_order_acq_rel)) {
    }
  }

  //! Helper wall time in ms: first start to last end once `finished`, to now while it runs (0:
  //! nothing started).
  [[nodiscard]] double elapsed_ms(bool finished) const {
    const long long start = start_ns.load(std::memory_order_acquire);
    if (start == 0) return 0;
    const long long end = finished ? end_ns.load(std::memory_order_acquire) : now();
    return static_cast<double>(std::max(0LL, end - start)) * 1e-6;
  }

  //! Adds the pieces' outcomes to `r` (only once every piece has returned).
  void add_outcomes(iteration_record& r) const {
    for (const transform_outcome& o : outcomes) {
      r.metric_before += o.before;
      r.metric_after += o.after;
    }
  }

  //! Copies the first error into `r` when the transformation failed.
  void report_error(iteration_record& r) {
    if (!has_failed()) return;
    const std::lock_guard lock(error_mutex);
    r.error = error;
  }

 private:
  void fail(const char* what) {
    {
      const std::lock_guard lock(error_mutex);
      if (error.empty()) error = what;
    }
    failed.store(true, std::memory_order_release);
    cancel.store(true, std::memory_order_release);
  }
};

//! On leaving run() (normally or by an exception): calls `cancel_all` to abandon the driver's
//! tasks, then waits until no helper of `pool` (if it exists by then) runs.
template <class CancelAll>
class helper_stop {
 public:
  helper_stop(const std::unique_ptr<worker_pool>& pool, CancelAll cancel_all)
      : pool_(pool), cancel_all_(std::move(cancel_all)) {}
  ~helper_stop() {
    cancel_all_();
    if (pool_) pool_->wait_idle();
  }
  helper_stop(const helper_stop&) = delete;
  helper_stop& operator=(const helper_stop&) = delete;

 private:
  const std::unique_ptr<worker_pool>& pool_;
  CancelAll cancel_all_;
};

}  // namespace microsched::pipeline::detail
