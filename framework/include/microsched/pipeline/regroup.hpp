// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file regroup.hpp
//! Path-vector regrouping (zhang2010 §2.2, zhang2011 §4.2): threads whose path vectors (branch
//! decisions, plus one dimension per loop holding its clustered trip count) are equal are packed
//! into the same warps. Full warps of each key come first, the residuals (fewer than a warp per
//! key) after them sorted by key, so the number of pure warps is the largest the counts allow:
//! sum over keys of floor(count / warp).

#include <cstdint>
#include <span>
#include <vector>

#include "microsched/pipeline/thread_mapping.hpp"

namespace microsched::pipeline {

//! Clusters loop trip counts into at most `clusters` groups by distance-based clustering on a
//! logarithmic scale (a gap from 100 to 200 iterations matters as much as one from 1000 to 2000):
//! the distinct values are cut at the clusters-1 widest gaps of log(1 + trips). Returns each
//! element's cluster id, 0 for the smallest trip counts. Throws std::invalid_argument for
//! clusters < 1.
[[nodiscard]] std::vector<std::uint32_t> cluster_trip_counts(std::span<const std::uint32_t> trips,
                                                             int clusters);

//! Combines a thread's branch decisions (bit k = condition k taken) and its loop cluster into
//! one path-vector key: bits * clusters + cluster. Throws on a size mismatch or clusters < 1.
[[nodiscard]] std::vector<std::uint32_t> path_vector_keys(
    std::span<const std::uint32_t> branch_bits, std::span<const std::uint32_t> loop_cluster,
    std::uint32_t clusters);

//! Regrouping mapping (`source`, thread t works on element source[t]): stable within a key,
//! full warps first. Throws std::invalid_argument for warp < 1.
[[nodiscard]] std::vector<index_t> regroup(std::span<const std::uint32_t> keys,
                                           int warp = warp_size);

}  // namespace microsched::pipeline
