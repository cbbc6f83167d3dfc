// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file host_claim_counter.hpp
//! The coarse-claim counter of one process: a host atomic that the host thread of every GPU
//! reaches (take_claim, claim_plan.hpp). A claim costs one atomic load and one fetch-and-add on a
//! cache line the claimants share, well below a kernel launch, and needs no peer access.

#include <atomic>

#include "microsched/config.hpp"

namespace microsched::multi_gpu {

class host_claim_counter {
 public:
  void reset() { next_.store(0, std::memory_order_relaxed); }
  [[nodiscard]] task_id read() const { return next_.load(std::memory_order_relaxed); }
  [[nodiscard]] task_id fetch_add(task_id n) {
    return next_.fetch_add(n, std::memory_order_relaxed);
  }

 private:
  std::atomic<task_id> next_{0};
};

}  // namespace microsched::multi_gpu
