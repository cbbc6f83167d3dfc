// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/pipeline/worker_pool.hpp"

#include <algorithm>
#include <utility>

#include "microsched/error.hpp"

namespace microsched::pipeline {

worker_pool::worker_pool(int threads, std::chrono::microseconds spin)
    : spin_(spin), active_(threads), awake_(threads) {
  if (threads < 1) throw_invalid("threads", threads, "must be >= 1");
  if (spin.count() < 0) throw_invalid("spin_us", spin.count(), "must be >= 0");
  threads_.reserve(static_cast<std::size_t>(threads));
  try {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this, i] { run(i); });
  } catch (...) {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
    throw;
  }
}

worker_pool::~worker_pool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    stop_flag_.store(true, std::memory_order_release);
    queue_.clear();
    queued_.store(0, std::memory_order_release);
  }
  wake_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

void worker_pool::submit(std::function<void()> task) {
  {
    const std::lock_guard lock(mutex_);
    queue_.push_back(std::move(task));
    queued_.fetch_add(1, std::memory_order_release);
  }
  // With helpers set aside, the one woken could be one that may not take it.
  if (active() < size())
    wake_.notify_all();
  else
    wake_.notify_one();
}

void worker_pool::set_active(int threads) {
  const int active = std::clamp(threads, 1, size());
  {
    const std::lock_guard lock(mutex_);
    if (active_.load(std::memory_order_relaxed) == active)
      return;  // every run sets it: no needless wake-ups
    active_.store(active, std::memory_order_release);
  }
  wake_.notify_all();
}

void worker_pool::submit(std::vector<std::function<void()>> tasks) {
  if (tasks.empty()) return;
  {
    const std::lock_guard lock(mutex_);
    for (auto& task : tasks) queue_.push_back(std::move(task));
    queued_.fetch_add(static_cast<int>(tasks.size()), std::memory_order_release);
  }
  wake_.notify_all();
}

void worker_pool::wait_idle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && running_ == 0; });
}

std::exception_ptr worker_pool::take_error() {
  const std::lock_guard lock(mutex_);
  return std::exchange(error_, nullptr);
}

void worker_pool::run(int index) {
  std::unique_lock lock(mutex_);
  while (true) {
    const auto may_work = [&] { return index < active_.load(std::memory_order_acquire); };
    if (queue_.empty() && !stopping_ && spin_.count() > 0 &&
        may_work()) {  // poll a while before sleeping
      lock.unlock();
      const auto until = std::chrono::steady_clock::now() + spin_;
      while (queued_.load(std::memory_order_acquire) == 0 &&
             !stop_flag_.load(std::memory_order_acquire) &&
             std::chrono::steady_clock::now() < until) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      }
      lock.lock();
    }
    awake_.fetch_sub(1, std::memory_order_relaxed);
    wake_.wait(lock, [&] { return stopping_ || (!queue_.empty() && may_work()); });
    awake_.fetch_add(1, std::memory_order_relaxed);
    if (stopping_) return;
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    queued_.fetch_sub(1, std::memory_order_release);
    ++running_;
    lock.unlock();
    std::exception_ptr error;
    try {
      task();
    } catch (...) {
      error = std::current_exception();
    }
    task = nullptr;  // release captured state before reporting idle
    lock.lock();
    if (error && !error_) error_ = error;
    --running_;
    if (queue_.empty() && running_ == 0) idle_.notify_all();
  }
}

}  // namespace microsched::pipeline
