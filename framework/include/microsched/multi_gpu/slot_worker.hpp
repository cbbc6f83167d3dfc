// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file slot_worker.hpp
//! The host thread of one slot of a multi-GPU scheduler, started once with it: a run hands each
//! worker its claim loop instead of starting a thread, so every GPU's first claim is enqueued
//! within microseconds of the call. A worker stays awake (yielding) for a while after a job, so a
//! loop of runs finds it running, then sleeps until the next job or its end.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace microsched::multi_gpu::detail {

class slot_worker {
 public:
  //! How long an idle worker yields before it sleeps: a frame's host work between two runs.
  static constexpr std::chrono::milliseconds stay_awake{5};

  slot_worker() : thread_([this] { loop(); }) {}
  ~slot_worker() {
    {
      const std::lock_guard lock(mutex_);
      quit_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  slot_worker(const slot_worker&) = delete;
  slot_worker& operator=(const slot_worker&) = delete;

  //! Runs `job` on the worker. The previous job must have ended (the scheduler joins its runs).
  void post(std::function<void()> job) {
    {
      const std::lock_guard lock(mutex_);
      job_ = std::move(job);
      posted_.store(true, std::memory_order_release);
    }
    wake_.notify_one();
  }

 private:
  void loop() {
    for (;;) {
      const auto until = std::chrono::steady_clock::now() + stay_awake;
      while (!posted_.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return posted_.load(std::memory_order_relaxed) || quit_; });
        if (!posted_.load(std::memory_order_relaxed)) return;  // quit with nothing posted
        job = std::move(job_);
        posted_.store(false, std::memory_order_relaxed);
      }
      job();  // catches its own errors (the scheduler's claim loop stores them in the run)
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::function<void()> job_;
  std::atomic<bool> posted_{false};
  bool quit_ = false;
  std::thread thread_;  //!< last: starts once the members above exist
};

}  // namespace microsched::multi_gpu::detail
