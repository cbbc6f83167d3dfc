// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file fake_backend.hpp
//! A simulated GPU for host tests of the pipeline: streams run enqueued work in order, events
//! complete when their stream reaches them. No CUDA, so the pipeline's threading can be checked
//! under ThreadSanitizer.
//!
//! Deterministic by construction, whatever the load on the machine:
//! - The simulated GPU moves only when the driver looks at it: a query, a wait or a
//!   synchronisation runs the stream's work, on the calling thread, as far as it can go. Work
//!   may be held by a condition (`fake_stream::enqueue_when`: a simulated kernel that ends only
//!   once the test's script allows), and a stream stops at the first work whose condition does
//!   not hold. So what the driver observes depends on what it and the helpers did, never on when
//!   a thread was scheduled.
//! - Timings are scripted, not measured: each stream keeps a simulated clock that only its work
//!   advances (`fake_stream::advance`, called by a simulated kernel with its scripted duration),
//!   and an event records that clock, so `elapsed_ms` between two events of one stream is the
//!   sum of the scripted durations between them. The host clock the drivers read (`now_ns`,
//!   detail::has_host_clock) stands still unless a test moves it (`advance_host`).
//! - Copies are synchronous: the copy stream runs its work at once, so a copy and the event
//!   recorded after it are complete when the driver's call returns.
//! A synchronisation that cannot complete (work held by a condition nothing will satisfy) throws
//! std::logic_error instead of hanging: the test's script is wrong.

#include <array>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <stdexcept>

namespace microsched::pipeline::testing {

class fake_stream {
 public:
  //! `at_once`: work runs when enqueued (the copy stream); otherwise when the stream is looked at.
  explicit fake_stream(bool at_once = false) : at_once_(at_once) {}
  fake_stream(const fake_stream&) = delete;
  fake_stream& operator=(const fake_stream&) = delete;

  void enqueue(std::function<void()> work) { enqueue_when(nullptr, std::move(work)); }
  //! `work` runs once everything before it has and `ready()` holds (null: at once).
  void enqueue_when(std::function<bool()> ready, std::function<void()> work) {
    queue_.push_back({std::move(ready), std::move(work)});
    if (at_once_) progress();
  }
  //! Runs the work whose turn has come; stops at the first whose condition does not hold.
  void progress() {
    if (running_) return;  // work that looks at its own stream
    running_ = true;
    while (!queue_.empty() && (!queue_.front().ready || queue_.front().ready())) {
      auto work = std::move(queue_.front().work);
      queue_.pop_front();
      work();
    }
    running_ = false;
  }
  //! Runs every piece of work; throws if some is held by a condition that does not hold.
  void synchronize() {
    progress();
    if (!queue_.empty())
      throw std::logic_error("fake_stream: work held by a condition the test never satisfies");
  }
  //! No work left (none held by a condition).
  [[nodiscard]] bool idle() const { return queue_.empty(); }
  //! Called from work running on this stream: the simulated clock moves by `d`.
  void advance(std::chrono::nanoseconds d) {
    clock_ns_.fetch_add(d.count(), std::memory_order_relaxed);
  }
  //! The simulated clock.
  [[nodiscard]] long long now_ns() const { return clock_ns_.load(std::memory_order_relaxed); }

 private:
  struct item {
    std::function<bool()> ready;
    std::function<void()> work;
  };
  std::deque<item> queue_;
  bool at_once_ = false;
  bool running_ = false;
  std::atomic<long long> clock_ns_{0};
};

class fake_backend {
 public:
  using stream_type = fake_stream*;
  static constexpr int max_events = 4096;

  stream_type compute_stream() { return &compute_; }
  stream_type copy_stream() { return &copy_; }
  int make_event() {
    if (next_event_ >= max_events) throw std::runtime_error("fake_backend: out of events");
    return next_event_++;
  }
  void record(int e, stream_type s) {
    event& ev = events_[e];
    const unsigned long gen = ++ev.recorded;
    ev.stream = s;
    s->enqueue([&ev, gen, s] {
      ev.when_ns = s->now_ns();
      ev.done = gen;
    });
  }
  //! True once the event's stream reached it; the stream first runs as far as it can.
  bool query(int e) {
    if (!done(e) && events_[e].stream != nullptr) events_[e].stream->progress();
    return done(e);
  }
  //! Stream `s` waits for the event (the copy stream, which runs at once, makes the event's
  //! stream run up to it, and throws if that stream is held before it).
  void wait(stream_type s, int e) {
    const unsigned long gen = events_[e].recorded;
    s->enqueue_when(
        [this, e, gen] {
          if (events_[e].done < gen && events_[e].stream != nullptr) events_[e].stream->progress();
          return events_[e].done >= gen;
        },
        [] {});
    if (s == &copy_ && !copy_.idle())
      throw std::logic_error("fake_backend: the copy stream waits for an event that never comes");
  }
  void synchronize_event(int e) {
    if (!query(e))
      throw std::logic_error("fake_backend: an event held by a condition the test never satisfies");
  }
  //! Simulated time between two events recorded on the same stream (scripted durations).
  double elapsed_ms(int a, int b) { return double(events_[b].when_ns - events_[a].when_ns) * 1e-6; }
  void synchronize() {
    compute_.synchronize();
    copy_.synchronize();
  }
  //! The scripted host clock (detail::has_host_clock): it stands still unless advanced. Helpers
  //! read it too.
  [[nodiscard]] long long now_ns() const { return host_ns_.load(std::memory_order_acquire); }
  void advance_host(std::chrono::nanoseconds d) {
    host_ns_.fetch_add(d.count(), std::memory_order_acq_rel);
  }

 private:
  struct event {
    unsigned long recorded = 0;
    unsigned long done = 0;
    long long when_ns = 0;
    fake_stream* stream = nullptr;
  };
  [[nodiscard]] bool done(int e) const { return events_[e].done >= events_[e].recorded; }
  std::array<event, max_events> events_{};
  int next_event_ = 0;
  std::atomic<long long> host_ns_{1'000'000'000};  // > 0: a start time of 0 means "not started"
  fake_stream compute_;
  fake_stream copy_{true};
};

}  // namespace microsched::pipeline::testing
