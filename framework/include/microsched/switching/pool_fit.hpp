// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file pool_fit.hpp
//! Shared memory of the switching policy's context pools, as pure host functions the scheduler
//! evaluates (and tests check) before any launch.

#include <cstddef>
#include <stdexcept>
#include <string>

#include "microsched/config.hpp"

namespace microsched::switching {

//! Shared memory a block needs: one context pool per warp.
[[nodiscard]] constexpr std::size_t pool_shared_bytes(std::size_t pool_bytes, int block_threads) {
  return pool_bytes * static_cast<std::size_t>(block_threads / warp_size);
}

//! Throws std::invalid_argument when `need` bytes of shared memory per block exceed what the
//! device allows a block after opting in (`limit`), saying what to lower.
inline void require_shared_fit(std::size_t need, std::size_t limit, int contexts_per_warp,
                               std::size_t context_bytes, int block_threads) {
  if (need <= limit) return;
  throw std::invalid_argument(
      "context pool does not fit in shared memory: " + std::to_string(block_threads / warp_size) +
      " warps x " + std::to_string(contexts_per_warp) + " contexts x " +
      std::to_string(context_bytes) + " B (plus the branch map) = " + std::to_string(need) +
      " B per block, the device allows " + std::to_string(limit) +
      " B; lower ContextsPerWarp or BlockThreads, or shrink the context");
}

}  // namespace microsched::switching
