// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file idle_count.cuh
//! How a warp counts its idle lanes at a fetch check, chosen at compile time: one ballot (Any,
//! All, Ballot(n)), or the shared-memory atomic of frey2012 §4.3 (Atomic(n): the same decision at
//! a different cost). A compile-time choice keeps the other's code out of the compute loop.

#include "microsched/config.hpp"
#include "microsched/driver/atomic_idle_counter.cuh"
#include "microsched/lane/lane_mask.hpp"

namespace microsched::detail {

template <bool Atomic, int Warps>
class idle_count;

template <int Warps>
class idle_count<false, Warps> {
 public:
  struct temp_storage {};
  __device__ __forceinline__ idle_count(temp_storage&, unsigned, unsigned) {}
  //! Warp-collective: lanes that are idle now.
  [[nodiscard]] __device__ __forceinline__ int count(bool idle) const {
    return popcount(__ballot_sync(full_mask, idle));
  }
  __device__ __forceinline__ void reset() {}
};

template <int Warps>
class idle_count<true, Warps> {
 public:
  using temp_storage = typename atomic_idle_counter<Warps>::temp_storage;
  __device__ __forceinline__ idle_count(temp_storage& storage, unsigned warp, unsigned lane)
      : counter_(storage, warp, lane) {}
  //! Warp-collective: lanes that became idle since the last reset (a lane counts itself once).
  [[nodiscard]] __device__ __forceinline__ int count(bool idle) { return counter_.count(idle); }
  __device__ __forceinline__ void reset() { counter_.reset(); }

 private:
  atomic_idle_counter<Warps> counter_;
};

}  // namespace microsched::detail
