// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/pipeline/regroup.hpp"

#include <algorithm>
#include <cmath>

#include "microsched/error.hpp"

namespace microsched::pipeline {

std::vector<std::uint32_t> cluster_trip_counts(std::span<const std::uint32_t> trips, int clusters) {
  if (clusters < 1) throw_invalid("clusters", clusters, "must be >= 1");
  std::vector<std::uint32_t> distinct(trips.begin(), trips.end());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<std::uint32_t> out(trips.size(), 0);
  if (distinct.size() <= 1) return out;
  // Gaps between neighbouring distinct values on a log scale; cut at the widest clusters-1.
  std::vector<std::pair<double, std::size_t>> gaps;  // (width, index of the value after the gap)
  for (std::size_t k = 1; k < distinct.size(); ++k)
    gaps.emplace_back(std::log1p(double(distinct[k])) - std::log1p(double(distinct[k - 1])), k);
  const std::size_t cuts = std::min(gaps.size(), static_cast<std::size_t>(clusters - 1));
  std::partial_sort(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(cuts), gaps.end(),
                    [](const auto& a, const auto& b) {
                      return a.first > b.first || (a.first == b.first && a.second < b.second);
                    });
  std::vector<std::uint32_t> starts;  // first distinct value of every cluster but the first
  for (std::size_t k = 0; k < cuts; ++k) starts.push_back(distinct[gaps[k].second]);
  std::sort(starts.begin(), starts.end());
  for (std::size_t i = 0; i < trips.size(); ++i)
    out[i] = static_cast<std::uint32_t>(std::upper_bound(starts.begin(), starts.end(), trips[i]) -
                                        starts.begin());
  return out;
}

std::vector<std::uint32_t> path_vector_keys(std::span<const std::uint32_t> branch_bits,
                                            std::span<const std::uint32_t> loop_cluster,
                                            std::uint32_t clusters) {
  if (clusters < 1) throw_invalid("clusters", clusters, "must be >= 1");
  if (branch_bits.size() != loop_cluster.size())
    throw_invalid("loop_cluster size", loop_cluster.size(), "must match branch_bits");
  std::vector<std::uint32_t> keys(branch_bits.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (loop_cluster[i] >= clusters)
      throw_invalid("loop_cluster", loop_cluster[i], "must be below clusters");
    keys[i] = branch_bits[i] * clusters + loop_cluster[i];
  }
  return keys;
}

std::vector<index_t> regroup(std::span<const std::uint32_t> keys, int warp) {
  if (warp < 1) throw_invalid("warp", warp, "must be >= 1");
  const auto w = static_cast<std::size_t>(warp);
  // Stable counting sort by key (keys compressed to their distinct values).
  std::vector<std::uint32_t> distinct(keys.begin(), keys.end());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<std::uint32_t> rank(keys.size());
  std::vector<std::size_t> count(distinct.size(), 0);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    rank[i] = static_cast<std::uint32_t>(
        std::lower_bound(distinct.begin(), distinct.end(), keys[i]) - distinct.begin());
    ++count[rank[i]];
  }
  // Full warps of every key first, then the residuals in key order.
  std::vector<std::size_t> full_at(distinct.size()), residual_at(distinct.size()),
      full_left(distinct.size());
  std::size_t pos = 0;
  for (std::size_t k = 0; k < distinct.size(); ++k) {
    full_at[k] = pos;
    full_left[k] = count[k] / w * w;
    pos += full_left[k];
  }
  for (std::size_t k = 0; k < distinct.size(); ++k) {
    residual_at[k] = pos;
    pos += count[k] % w;
  }
  std::vector<index_t> source(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::uint32_t k = rank[i];
    if (full_left[k] > 0) {
      --full_left[k];
      source[full_at[k]++] = static_cast<index_t>(i);
    } else {
      source[residual_at[k]++] = static_cast<index_t>(i);
    }
  }
  return source;
}

}  // namespace microsched::pipeline
