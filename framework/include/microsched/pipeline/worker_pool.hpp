// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file worker_pool.hpp
//! Helper CPU threads of the pipeline (zhang2010's cpuThreadControl): a fixed set of threads
//! reused for every transformation. Pure host code (no CUDA), so it runs under ThreadSanitizer.
//! Tasks report their own errors; an exception that escapes a task is captured here, never lost
//! and never fatal, and handed to the owner by take_error().

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace microsched::pipeline {

class worker_pool {
 public:
  //! Starts `threads` helper threads. Throws std::invalid_argument for threads < 1 or a negative
  //! `spin`.
  //! @param spin  a helper that finds the queue empty polls it this long before it sleeps, so
  //!   a chunk submitted right after the last one starts on every helper at once (waking 15
  //!   sleeping helpers one by one delays the chunk's last piece; 0: sleep at once).
  explicit worker_pool(int threads, std::chrono::microseconds spin = std::chrono::microseconds{0});
  //! Discards queued tasks, lets running ones finish and joins every thread.
  ~worker_pool();
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  //! Queues a task; some helper thread runs it.
  void submit(std::function<void()> task);
  //! Queues several tasks at once (one lock, every helper woken).
  void submit(std::vector<std::function<void()>> tasks);
  //! Blocks until the queue is empty and no task runs (tests and shutdown paths only).
  void wait_idle();
  //! The first exception that escaped a task since the last call, or null.
  [[nodiscard]] std::exception_ptr take_error();
  [[nodiscard]] int size() const noexcept { return static_cast<int>(threads_.size()); }
  //! Lets only the first `threads` helpers (clamped to 1..size()) take tasks; the others sleep
  //! until it is raised again. The pipeline sets it before each run from the cores the host has
  //! free (host_load.hpp), so helpers never outnumber the idle cores.
  void set_active(int threads);
  [[nodiscard]] int active() const noexcept { return active_.load(std::memory_order_acquire); }
  //! Helpers not sleeping right now (running a task or polling): runnable threads that are the
  //! pool's own, which a count of the host's runnable threads must not hold against it.
  [[nodiscard]] int awake() const noexcept { return awake_.load(std::memory_order_relaxed); }

 private:
  void run(int index);
  std::chrono::microseconds spin_{0};
  std::atomic<int> queued_{0};  // queue_.size(), readable without the lock (spinning helpers)
  std::atomic<bool> stop_flag_{false};
  std::atomic<int> active_{0};  // helpers with a smaller index may take tasks (set_active)
  std::atomic<int> awake_{0};   // helpers not waiting on wake_
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<std::function<void()>> queue_;
  int running_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace microsched::pipeline
