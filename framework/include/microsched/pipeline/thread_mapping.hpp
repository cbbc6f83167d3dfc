// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file thread_mapping.hpp
//! Thread-data mappings and the measures that judge them. A mapping is stored as `source`:
//! thread t works on element (job) source[t], i.e. the kernel's `newtid = D[tid]` with D = source
//! (zhang2010 §3.1). Pure host code: tested in CI without a GPU.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "microsched/config.hpp"

namespace microsched::pipeline {

//! Element and thread indices inside one chunk (a chunk holds fewer than 2^32 elements).
using index_t = std::uint32_t;

//! True when `p` holds every value 0..p.size()-1 exactly once (no element lost or duplicated).
[[nodiscard]] bool is_bijection(std::span<const index_t> p);

//! The inverse mapping: q[p[i]] = i. Throws std::invalid_argument when `p` is not a bijection.
[[nodiscard]] std::vector<index_t> invert(std::span<const index_t> p);

//! 0, 1, ..., n-1.
[[nodiscard]] std::vector<index_t> identity(std::size_t n);

//! Warps of `warp` consecutive threads whose threads all see the same key under `source`
//! (a partial last warp counts when it is pure). Throws on a size mismatch or warp < 1.
[[nodiscard]] std::size_t pure_warps(std::span<const std::uint32_t> keys,
                                     std::span<const index_t> source, int warp = warp_size);

//! Sum over warps of the largest trip count: the time a SIMT machine spends in a loop whose
//! trip count is trips[element] (zhang2010 §2.2, T = sum_w max_{k in w} it_k).
[[nodiscard]] std::uint64_t warp_trip_cost(std::span<const std::uint32_t> trips,
                                           std::span<const index_t> source, int warp = warp_size);

//! Memory transactions of the reference A[refs[source[t]]]: for every warp, the number of
//! distinct `segment_bytes` segments its threads touch (elements of `element_bytes`).
[[nodiscard]] std::uint64_t memory_transactions(std::span<const index_t> refs,
                                                std::span<const index_t> source,
                                                std::size_t element_bytes,
                                                std::size_t segment_bytes = 32,
                                                int warp = warp_size);

}  // namespace microsched::pipeline
