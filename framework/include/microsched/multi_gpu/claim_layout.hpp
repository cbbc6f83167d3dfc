// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file claim_layout.hpp
//! Which tasks a claim holds. A shared counter hands out ranges of units (claim_plan.hpp); in the
//! contiguous layout a unit is a task, in the interleaved layout (the default of dynamic claims)
//! the range is cut into granules of 2^shift tasks, granule g belongs to residue g mod period,
//! and a unit is a residue (index/task_slice.hpp). An interleaved claim then samples the whole
//! range evenly, in bands of whole granules, so claims of one size cost alike whatever the skew
//! of the range, the GPUs finish together, and each GPU's automatic schedule sees claims that
//! compare per task. Pure host arithmetic in 64 bits, tested on the CPU.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include "microsched/config.hpp"
#include "microsched/index/task_slice.hpp"
#include "microsched/multi_gpu/claim_plan.hpp"

namespace microsched::multi_gpu {

struct claim_layout {
  task_id count = 0;         //!< tasks of the range
  int shift = 0;             //!< granules of 2^shift tasks (interleaved)
  std::uint32_t period = 0;  //!< residues, the units of the counter; 0: contiguous, a unit a task

  [[nodiscard]] bool interleaved() const { return period != 0; }
  //! The counter's range: [0, units()).
  [[nodiscard]] task_id units() const { return period == 0 ? count : period; }

  //! The tasks of claim `c` (a range of units) as a slice that sliced_program runs.
  [[nodiscard]] task_slice slice(const claimed_range& c) const {
    if (period == 0 || c.empty()) return task_slice::range(c.first, c.count);
    return task_slice::residues(count, shift, period, static_cast<std::uint32_t>(c.first),
                                static_cast<std::uint32_t>(c.end()));
  }
  [[nodiscard]] task_id tasks(const claimed_range& c) const { return slice(c).size(); }

  //! Calls f(first, n) for each run of consecutive task ids of claim `c`, in increasing order:
  //! one run per period of granules where interleaved.
  template <class F>
  void for_each_run(const claimed_range& c, F&& f) const {
    if (c.empty()) return;
    if (period == 0) {
      f(c.first, c.count);
      return;
    }
    const task_id stride = task_id{period} << shift;
    const task_id offset = c.first << shift;
    const task_id width = c.count << shift;
    for (task_id base = 0; base + offset < count; base += stride) {
      const task_id first = base + offset;
      f(first, std::min(width, count - first));
    }
  }
};

//! The contiguous layout of `count` tasks: a unit is a task.
[[nodiscard]] inline claim_layout contiguous_layout(task_id count) {
  return {count, 0, 0};
}

//! Residues per smallest claim: the guided claims above it are powers of two of them.
inline constexpr task_id residues_per_smallest_claim = 16;
//! Granules per residue, at least: each residue samples the range at that many places.
inline constexpr task_id granules_per_residue = 64;
//! The most residues: a claim's slice divides granule ids by a 32-bit width.
inline constexpr task_id most_residues = task_id{1} << 24;

//! The layout of dynamic claims of `count` tasks over `claimants`: contiguous unless
//! settings.interleave; interleaved, bit_ceil(claimants x granules) x 16 residues (fewer where
//! the range has fewer granules), granules sized so that each residue holds at least 64.
[[nodiscard]] inline claim_layout claims_layout(task_id count, int claimants,
                                                const claim_settings& s) {
  if (!s.interleave || count == 0) return contiguous_layout(count);
  const task_id parts = static_cast<task_id>(std::max(claimants, 1)) * s.granules;
  const task_id wanted = std::min(
      std::bit_ceil(std::min(parts, most_residues)) * residues_per_smallest_claim, most_residues);
  const task_id per_granule = count / (wanted * granules_per_residue);
  claim_layout l;
  l.count = count;
  l.shift = per_granule <= 1 ? 0 : static_cast<int>(std::bit_width(per_granule)) - 1;
  const task_id granules = ((count - 1) >> l.shift) + 1;  // the last one may be partial
  l.period = static_cast<std::uint32_t>(std::min(wanted, std::bit_floor(granules)));
  return l;
}

//! The smallest claim in units of `layout`: smallest_claim's rule (a power of two, at least
//! units / (claimants x granules) and min_tasks' worth of units), at most every unit.
[[nodiscard]] inline task_id smallest_units(const claim_layout& layout, int claimants,
                                            const claim_settings& s) {
  if (!layout.interleaved()) return smallest_claim(layout.count, claimants, s);
  const task_id units = layout.units();
  const task_id parts = static_cast<task_id>(std::max(claimants, 1)) * s.granules;
  const task_id even = units / parts + (units % parts != 0);
  const task_id per_unit = std::max(layout.count / units, task_id{1});
  const task_id floor = s.min_tasks / per_unit + (s.min_tasks % per_unit != 0);
  return std::min(std::bit_ceil(std::max({even, floor, task_id{1}})), units);
}

//! What the claims of `layout` over `claimants` are, for reports: "interleaved claims (granules
//! of 2^12 tasks, 1024 residues), first 16 residues (4194304 tasks), smallest 16 (4194304)".
[[nodiscard]] inline std::string describe_claims(const claim_layout& layout, int claimants,
                                                 const claim_settings& s) {
  const task_id smallest = smallest_units(layout, claimants, s);
  const task_id first = claim_size(layout.units(), claimants, smallest, s);
  const auto tasks = [&](task_id units) {
    return std::to_string(layout.tasks({0, std::min(units, layout.units())}));
  };
  if (!layout.interleaved()) {
    return std::string(first == smallest ? "equal" : "guided") + " contiguous claims, first " +
           tasks(first) + " tasks, smallest " + tasks(smallest);
  }
  return std::string(first == smallest ? "equal" : "guided") +
         " interleaved claims (granules of 2^" + std::to_string(layout.shift) + " tasks, " +
         std::to_string(layout.period) + " residues), first " + std::to_string(first) +
         " residues (" + tasks(first) + " tasks), smallest " + std::to_string(smallest) + " (" +
         tasks(smallest) + ")";
}

}  // namespace microsched::multi_gpu
