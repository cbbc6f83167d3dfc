// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file fake_backend.hpp
//! A simulated GPU for host tests of the pipeline: each stream is a thread running enqueued work
//! in order; events complete when the stream reaches them. No CUDA, so the pipeline's threading
//! can be checked under ThreadSanitizer.
//!
//! Timings are scripted, not measured: each stream keeps a simulated clock that only the work on
//! it advances (`fake_stream::advance`, called by a simulated kernel with its scripted duration),
//! and an event records that clock. So `elapsed_ms` between two events of one stream is exactly
//! the sum of the scripted durations between them, whatever the load on the machine: the adaptive
//! control's decisions in these tests do not depend on how threads were scheduled.

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace microsched::pipeline::testing {

class fake_stream {
 public:
  fake_stream() : thread_([this] { run(); }) {}
  ~fake_stream() {
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void enqueue(std::function<void()> work) {
    {
      const std::lock_guard lock(mutex_);
      queue_.push_back(std::move(work));
    }
    wake_.notify_all();
  }
  void synchronize() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
  }
  //! Called from work running on this stream: the simulated clock moves by `d`.
  void advance(std::chrono::nanoseconds d) {
    clock_ns_.fetch_add(d.count(), std::memory_order_relaxed);
  }
  //! The simulated clock (read by work running on this stream).
  [[nodiscard]] long long now_ns() const { return clock_ns_.load(std::memory_order_relaxed); }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_ and drained
      auto work = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      lock.unlock();
      work();
      lock.lock();
      busy_ = false;
      if (queue_.empty()) idle_.notify_all();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<std::function<void()>> queue_;
  bool busy_ = false;
  bool stop_ = false;
  std::atomic<long long> clock_ns_{0};
  std::thread thread_;
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
    const unsigned long gen = ++events_[e].recorded;  // main thread only writes `recorded`
    s->enqueue([this, e, gen, s] {
      const std::lock_guard lock(event_mutex_);
      events_[e].when_ns.store(s->now_ns(), std::memory_order_relaxed);
      events_[e].done.store(gen, std::memory_order_release);
      event_done_.notify_all();
    });
  }
  bool query(int e) {
    return events_[e].done.load(std::memory_order_acquire) >= events_[e].recorded.load();
  }
  void wait(stream_type s, int e) {
    const unsigned long gen = events_[e].recorded.load();
    s->enqueue([this, e, gen] {
      std::unique_lock lock(event_mutex_);
      event_done_.wait(lock,
                       [&] { return events_[e].done.load(std::memory_order_acquire) >= gen; });
    });
  }
  void synchronize_event(int e) {
    const unsigned long gen = events_[e].recorded.load();
    std::unique_lock lock(event_mutex_);
    event_done_.wait(lock, [&] { return events_[e].done.load(std::memory_order_acquire) >= gen; });
  }
  //! Simulated time between two events recorded on the same stream (scripted durations).
  double elapsed_ms(int a, int b) {
    return double(events_[b].when_ns.load(std::memory_order_relaxed) -
                  events_[a].when_ns.load(std::memory_order_relaxed)) *
           1e-6;
  }
  void synchronize() {
    compute_.synchronize();
    copy_.synchronize();
  }

 private:
  struct event {
    std::atomic<unsigned long> recorded{0};
    std::atomic<unsigned long> done{0};
    std::atomic<long long> when_ns{0};
  };
  std::array<event, max_events> events_{};
  std::mutex event_mutex_;
  std::condition_variable event_done_;
  int next_event_ = 0;
  fake_stream compute_;
  fake_stream copy_;
};

}  // namespace microsched::pipeline::testing
