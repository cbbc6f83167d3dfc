// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file atomic_idle_counter.cuh
//! Fetch control Atomic(n) (frey2012 §4.3): lanes count themselves idle with a shared-memory
//! atomic, once each, instead of a ballot. Same decision as Ballot(n) while idleness only grows
//! (termination); under switching a lane refilled from the context pool stays counted until the
//! reset.

#include "microsched/config.hpp"

namespace microsched {

template <int Warps>
class atomic_idle_counter {
 public:
  struct temp_storage {
    int idle[Warps];  // (warp)
  };

  __device__ __forceinline__ atomic_idle_counter(temp_storage& storage, unsigned warp,
                                                 unsigned lane)
      : count_(storage.idle[warp]), lane_(lane) {
    if (lane_ == 0) count_ = 0;
    __syncwarp();
  }

  //! Warp-collective: counts this lane if it became idle since the last reset; returns the count.
  [[nodiscard]] __device__ __forceinline__ int count(bool idle) {
    if (idle && !counted_) {
      atomicAdd(&count_, 1);
      counted_ = true;
    }
    __syncwarp();
    const int n = *static_cast<volatile int*>(&count_);
    __syncwarp();
    return n;
  }

  //! Warp-collective: the warp left its compute loop; start counting afresh.
  __device__ __forceinline__ void reset() {
    if (lane_ == 0) count_ = 0;
    counted_ = false;
    __syncwarp();
  }

 private:
  int& count_;
  unsigned lane_;
  bool counted_ = false;
};

}  // namespace microsched
