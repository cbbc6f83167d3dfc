// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file idle_count.cuh
//! How a warp counts its idle lanes at a fetch check: one ballot (Any, All, Ballot(n)).

#include "microsched/config.hpp"
#include "microsched/lane/lane_mask.hpp"

namespace microsched::detail {

template <int Warps>
class idle_count {
 public:
  struct temp_storage {};
  __device__ __forceinline__ idle_count(temp_storage&, unsigned, unsigned) {}
  //! Warp-collective: lanes that are idle now.
  [[nodiscard]] __device__ __forceinline__ int count(bool idle) const {
    return popcount(__ballot_sync(full_mask, idle));
  }
  __device__ __forceinline__ void reset() {}
};

}  // namespace microsched::detail
