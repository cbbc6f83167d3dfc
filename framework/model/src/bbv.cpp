// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/model/bbv.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "microsched/error.hpp"

namespace microsched::model {

void validate(const bbv_matrix& bbv) {
  if (bbv.items == 0) throw_invalid("bbv items", bbv.items, "a BBV matrix needs at least one item");
  if (bbv.regions == 0)
    throw_invalid("bbv regions", bbv.regions, "a BBV needs at least one region");
  if (bbv.counts.size() != bbv.items * bbv.regions)
    throw_invalid("bbv counts size", bbv.counts.size(), "must equal items * regions");
  if (bbv.loop_of.empty()) return;
  if (bbv.loop_of.size() != bbv.regions)
    throw_invalid("bbv loop_of size", bbv.loop_of.size(), "must be 0 or the number of regions");
  for (std::size_t r = 0; r < bbv.regions; ++r) {
    const std::int32_t loop = bbv.loop_of[r];
    if (loop == -1) continue;
    if (loop < 0 || static_cast<std::size_t>(loop) >= bbv.regions ||
        static_cast<std::size_t>(loop) == r)
      throw_invalid("bbv loop_of entry", loop, "must be -1 or another region's index");
    if (bbv.loop_of[static_cast<std::size_t>(loop)] != -1)
      throw_invalid("bbv loop region", loop, "is itself inside a loop: one level only");
  }
}

void validate_latency(const bbv_matrix& bbv, std::span<const double> latency) {
  if (latency.size() != bbv.regions)
    throw_invalid("latency size", latency.size(), "must equal the BBV's number of regions");
  for (std::size_t b = 0; b < latency.size(); ++b)
    if (!std::isfinite(latency[b]) || latency[b] < 0)
      throw_invalid("latency of region", b, "must be finite and >= 0");
}

double thread_latency(std::span<const std::uint32_t> row, std::span<const double> latency) {
  double sum = 0;
  for (std::size_t b = 0; b < row.size(); ++b) sum += latency[b] * row[b];
  return sum;
}

bool lexicographic_less(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

group_extent::group_extent(std::size_t regions)
    : min(regions, std::numeric_limits<std::uint32_t>::max()), max(regions, 0) {}

void group_extent::add(std::span<const std::uint32_t> row) {
  for (std::size_t b = 0; b < row.size(); ++b) {
    min[b] = std::min(min[b], row[b]);
    max[b] = std::max(max[b], row[b]);
  }
}

group_extent group_extent::merged(const group_extent& other) const {
  group_extent out(min.size());
  for (std::size_t b = 0; b < min.size(); ++b) {
    out.min[b] = std::min(min[b], other.min[b]);
    out.max[b] = std::max(max[b], other.max[b]);
  }
  return out;
}

double benefit(const group_extent& extent, std::span<const double> latency) {
  double sum = 0;
  for (std::size_t b = 0; b < latency.size(); ++b) sum += latency[b] * extent.min[b];
  return sum;
}

double cost(const group_extent& extent, std::span<const double> latency) {
  double sum = 0;
  for (std::size_t b = 0; b < latency.size(); ++b)
    sum += latency[b] * (double(extent.max[b]) - double(extent.min[b]));
  return sum;
}

double gain(const group_extent& extent, std::span<const double> latency) {
  return benefit(extent, latency) - cost(extent, latency);
}

double gain_with(const group_extent& group, std::span<const std::uint32_t> row,
                 std::span<const double> latency) {
  double sum = 0;
  for (std::size_t b = 0; b < latency.size(); ++b) {
    const double lo = std::min(group.min[b], row[b]);
    const double hi = std::max(group.max[b], row[b]);
    sum += latency[b] * (lo - (hi - lo));
  }
  return sum;
}

}  // namespace microsched::model
