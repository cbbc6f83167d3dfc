// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/pipeline/thread_mapping.hpp"

#include <algorithm>

#include "microsched/error.hpp"

namespace microsched::pipeline {

bool is_bijection(std::span<const index_t> p) {
  std::vector<bool> seen(p.size(), false);
  for (const index_t v : p) {
    if (v >= p.size() || seen[v]) return false;
    seen[v] = true;
  }
  return true;
}

std::vector<index_t> invert(std::span<const index_t> p) {
  if (!is_bijection(p)) throw_invalid("permutation size", p.size(), "not a bijection");
  std::vector<index_t> q(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) q[p[i]] = static_cast<index_t>(i);
  return q;
}

std::vector<index_t> identity(std::size_t n) {
  std::vector<index_t> q(n);
  for (std::size_t i = 0; i < n; ++i) q[i] = static_cast<index_t>(i);
  return q;
}

namespace {
void validate_mapping(std::size_t keys, std::span<const index_t> source, int warp) {
  if (warp < 1) throw_invalid("warp", warp, "must be >= 1");
  if (source.size() != keys) throw_invalid("source size", source.size(), "must match the keys");
}
}  // namespace

std::size_t pure_warps(std::span<const std::uint32_t> keys, std::span<const index_t> source,
                       int warp) {
  validate_mapping(keys.size(), source, warp);
  std::size_t pure = 0;
  for (std::size_t w = 0; w < source.size(); w += static_cast<std::size_t>(warp)) {
    const std::size_t end = std::min(source.size(), w + static_cast<std::size_t>(warp));
    bool same = true;
    for (std::size_t t = w + 1; t < end && same; ++t) same = keys[source[t]] == keys[source[w]];
    pure += same ? 1 : 0;
  }
  return pure;
}

std::uint64_t warp_trip_cost(std::span<const std::uint32_t> trips, std::span<const index_t> source,
                             int warp) {
  validate_mapping(trips.size(), source, warp);
  std::uint64_t cost = 0;
  for (std::size_t w = 0; w < source.size(); w += static_cast<std::size_t>(warp)) {
    const std::size_t end = std::min(source.size(), w + static_cast<std::size_t>(warp));
    std::uint32_t most = 0;
    for (std::size_t t = w; t < end; ++t) most = std::max(most, trips[source[t]]);
    cost += most;
  }
  return cost;
}

std::uint64_t memory_transactions(std::span<const index_t> refs, std::span<const index_t> source,
                                  std::size_t element_bytes, std::size_t segment_bytes, int warp) {
  validate_mapping(refs.size(), source, warp);
  if (element_bytes == 0) throw_invalid("element_bytes", element_bytes, "must be > 0");
  if (segment_bytes == 0) throw_invalid("segment_bytes", segment_bytes, "must be > 0");
  std::uint64_t total = 0;
  std::vector<std::uint64_t> segments;
  for (std::size_t w = 0; w < source.size(); w += static_cast<std::size_t>(warp)) {
    const std::size_t end = std::min(source.size(), w + static_cast<std::size_t>(warp));
    segments.clear();
    for (std::size_t t = w; t < end; ++t) {
      const std::uint64_t first = std::uint64_t{refs[source[t]]} * element_bytes / segment_bytes;
      const std::uint64_t last =
          (std::uint64_t{refs[source[t]]} * element_bytes + element_bytes - 1) / segment_bytes;
      for (std::uint64_t s = first; s <= last; ++s) segments.push_back(s);
    }
    std::sort(segments.begin(), segments.end());
    total += static_cast<std::uint64_t>(std::unique(segments.begin(), segments.end()) -
                                        segments.begin());
  }
  return total;
}

}  // namespace microsched::pipeline
