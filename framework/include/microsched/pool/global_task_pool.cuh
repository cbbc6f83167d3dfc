// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file global_task_pool.cuh
//! The host owner of the global task pool's counter (frey2012 §4.1); kernels receive the
//! trivially copyable global_pool_ref by value.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <utility>

#include "microsched/config.hpp"
#include "microsched/device_buffer.hpp"
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
  global_task_pool(const global_task_pool&) = delete;
  global_task_pool& operator=(const global_task_pool&) = delete;

  void reset(cudaStream_t stream) {
    allocate();
    MICROSCHED_CUDA_TRY(
        cudaMemsetAsync(counters_.data() + turn_, 0, sizeof(unsigned long long), stream));
  }
  //! Before a launch that zeroes next_counter(): zeroes both counters the first time.
  void prime(cudaStream_t stream) {
    if (primed_) return;
    allocate();
    MICROSCHED_CUDA_TRY(cudaMemsetAsync(counters_.data(), 0, counters_.bytes(), stream));
    primed_ = true;
  }
  //! The counters exist (a first pooled launch, or adopt(), gave them).
  [[nodiscard]] bool allocated() const { return counters_.size() != 0; }
  //! Counters allocated ahead, on another thread: taken where this pool has none yet.
  void adopt(device_buffer<unsigned long long>&& counters) {
    if (counters_.size() == 0 && counters.size() == 2) counters_ = std::move(counters);
  }
  //! After prime() or reset().
  [[nodiscard]] global_pool_ref ref(task_id total) const { return {counters() + turn_, total}; }
  [[nodiscard]] unsigned long long* next_counter() const { return counters() + (1 - turn_); }
  //! The launch that zeroes next_counter() is enqueued: the next launch takes that counter.
  void launched() { turn_ = 1 - turn_; }

 private:
  void allocate() {
    if (counters_.size() == 0) counters_ = device_buffer<unsigned long long>(2);
  }
  [[nodiscard]] unsigned long long* counters() const {
    if (counters_.size() == 0) throw std::logic_error("global_task_pool: prime() or reset() first");
    return counters_.data();
  }
  device_buffer<unsigned long long> counters_;
  int turn_ = 0;
  bool primed_ = false;
};

}  // namespace microsched
