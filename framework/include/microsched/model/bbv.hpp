// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file bbv.hpp
//! Basic-block vectors (BBVs): for every thread (work item), how many times it executed each
//! user-marked region of a kernel. A thread's BBV is a compact picture of its control flow: its
//! size is the number of regions, not the length of the run. The model's metrics and the
//! regrouping algorithms read nothing else about a kernel (divergence-metrics paper, §IV).

#include <cstdint>
#include <span>
#include <vector>

namespace microsched::model {

//! Execution counts, row-major (item, region): counts[item * regions + region].
//!
//! `loop_of` says which regions are branches inside a loop (empty: none, the paper's model). For
//! region r, loop_of[r] is the region counted once per iteration of the loop that r sits in, or
//! -1. A warp runs such a branch in every iteration where any of its lanes takes it, so when the
//! lanes take two branches of one loop in alternation the warp runs both in most iterations;
//! the per-region maxima of eq. 2 miss that. The metrics then charge r the expected number of
//! iterations in which some lane takes it, each lane taking it in a random count[r] of its
//! count[loop_of[r]] iterations (warp_counts in metrics.hpp). A loop region is not itself
//! inside a loop.
struct bbv_matrix {
  std::size_t items = 0;
  std::size_t regions = 0;
  std::vector<std::uint32_t> counts;
  std::vector<std::int32_t> loop_of;

  bbv_matrix() = default;
  //! items x regions zeros.
  bbv_matrix(std::size_t items_, std::size_t regions_)
      : items(items_), regions(regions_), counts(items_ * regions_, 0) {}

  //! One item's BBV.
  [[nodiscard]] std::span<const std::uint32_t> row(std::size_t item) const {
    return {counts.data() + item * regions, regions};
  }
  [[nodiscard]] std::span<std::uint32_t> row(std::size_t item) {
    return {counts.data() + item * regions, regions};
  }
  [[nodiscard]] std::uint32_t at(std::size_t item, std::size_t region) const {
    return counts[item * regions + region];
  }
  //! The loop region `region` branches in, or -1 (also when `loop_of` is empty).
  [[nodiscard]] std::int32_t loop(std::size_t region) const {
    return loop_of.empty() ? -1 : loop_of[region];
  }
};

//! Throws std::invalid_argument unless `bbv` holds at least one item and one region, its counts
//! have items * regions entries and `loop_of` is empty or names, for every region, -1 or another
//! region that is not itself inside a loop.
void validate(const bbv_matrix& bbv);

//! Throws std::invalid_argument unless `latency` has one finite, non-negative value per region.
void validate_latency(const bbv_matrix& bbv, std::span<const double> latency);

//! A thread's latency (paper eq. 11): sum over regions of latency[b] * count[b].
[[nodiscard]] double thread_latency(std::span<const std::uint32_t> row,
                                    std::span<const double> latency);

//! Lexicographic order of two BBVs of equal length: the first differing count decides.
[[nodiscard]] bool lexicographic_less(std::span<const std::uint32_t> a,
                                      std::span<const std::uint32_t> b);

//! Per-region minimum and maximum over a group of items (paper eqs. 6 and 7).
struct group_extent {
  std::vector<std::uint32_t> min;
  std::vector<std::uint32_t> max;

  //! The extent of no item: min = UINT32_MAX, max = 0 (adding an item makes it that item's BBV).
  explicit group_extent(std::size_t regions);
  //! Widens the extent by one item's BBV.
  void add(std::span<const std::uint32_t> row);
  //! The extent of the union of this group and `other`.
  [[nodiscard]] group_extent merged(const group_extent& other) const;
};

//! Benefit of a group (eq. 8): sum of latency[b] * min[b], the work its items share.
[[nodiscard]] double benefit(const group_extent& extent, std::span<const double> latency);
//! Cost of a group (eq. 9): sum of latency[b] * (max[b] - min[b]), the work some items wait for.
[[nodiscard]] double cost(const group_extent& extent, std::span<const double> latency);
//! Gain of a group (eq. 10): benefit - cost. Merging identical BBVs has no cost.
[[nodiscard]] double gain(const group_extent& extent, std::span<const double> latency);

//! Gain of the union of `group` and one more item, without building the union.
[[nodiscard]] double gain_with(const group_extent& group, std::span<const std::uint32_t> row,
                               std::span<const double> latency);

}  // namespace microsched::model
