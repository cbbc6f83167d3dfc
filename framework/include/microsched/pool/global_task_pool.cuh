// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file global_task_pool.cuh
//! The host owner of the global task pool's counter (frey2012 §4.1); kernels receive the
//! trivially copyable global_pool_ref by value.

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "microsched/config.hpp"
#include "microsched/error.hpp"
#include "microsched/pool/global_pool_ref.cuh"

namespace microsched {

//! Owns two counters. A launch takes the current one, ref(), and gets a zero counter one of two
//! ways:
//! - reset() enqueues a memset of it before the launch;
//! - or the kernel zeroes next_counter() and the host calls launched() once the launch is
//!   enqueued: launches of one stream alternate the two counters, each zeroing the other for
//!   the launch after it. No memset runs between launches (one operation less per run, which
//!   short runs see). prime() zeroes both once, on the stream of the first launch.
class global_task_pool {
 public:
  //! Allocates nothing: the counters come with the first pooled launch (prime() or reset()), so
  //! a scheduler that only ever runs the direct mapping makes no device allocation.
  global_task_pool() = default;
  ~global_task_pool() {
    if (counters_ != nullptr) cudaFree(counters_);
  }
  global_task_pool(const global_task_pool&) = delete;
  global_task_pool& operator=(const global_task_pool&) = delete;

  void reset(cudaStream_t stream) {
    allocate();
    MICROSCHED_CUDA_TRY(cudaMemsetAsync(counters_ + turn_, 0, sizeof(*counters_), stream));
  }
  //! Before a launch that zeroes next_counter(): zeroes both counters the first time.
  void prime(cudaStream_t stream) {
    if (primed_) return;
    allocate();
    MICROSCHED_CUDA_TRY(cudaMemsetAsync(counters_, 0, 2 * sizeof(*counters_), stream));
    primed_ = true;
  }
  //! After prime() or reset().
  [[nodiscard]] global_pool_ref ref(task_id total) const { return {counters() + turn_, total}; }
  [[nodiscard]] unsigned long long* next_counter() const { return counters() + (1 - turn_); }
  //! The launch that zeroes next_counter() is enqueued: the next launch takes that counter.
  void launched() { turn_ = 1 - turn_; }

 private:
  void allocate() {
    if (counters_ == nullptr) MICROSCHED_CUDA_TRY(cudaMalloc(&counters_, 2 * sizeof(*counters_)));
  }
  [[nodiscard]] unsigned long long* counters() const {
    if (counters_ == nullptr) throw std::logic_error("global_task_pool: prime() or reset() first");
    return counters_;
  }
  unsigned long long* counters_ = nullptr;
  int turn_ = 0;
  bool primed_ = false;
};

}  // namespace microsched
