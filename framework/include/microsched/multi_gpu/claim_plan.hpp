// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file claim_plan.hpp
//! How one task range [0, count) is cut into the coarse claims that GPUs (or MPI ranks) take from
//! a shared counter: guided self-scheduling, a claim being a share of what is left, so the first
//! claims are large and the last ones small and the GPUs finish close together. Pure host
//! arithmetic in 64 bits, tested on the CPU.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>

#include "microsched/config.hpp"
#include "microsched/error.hpp"

namespace microsched::multi_gpu {

//! Tasks [first, first + count) of the logical range: what one claim hands to one GPU.
struct claimed_range {
  task_id first = 0;
  task_id count = 0;
  [[nodiscard]] bool empty() const { return count == 0; }
  [[nodiscard]] task_id end() const { return first + count; }
  friend bool operator==(const claimed_range&, const claimed_range&) = default;
};

//! The most tasks a range may hold: claimants that read the counter before it passed the end
//! add at most the range each, so max_range_tasks x max_claimants stays below 2^64.
inline constexpr task_id max_range_tasks = task_id{1} << 48;
//! The most claimants (GPUs of a process, or MPI ranks) one counter serves.
inline constexpr int max_claimants = 4096;

struct claim_settings {
  //! Claims made of interleaved granules that sample the whole range (claim_layout.hpp), so a
  //! claim's cost follows its size whatever the skew; false: contiguous ranges of tasks.
  bool interleave = true;
  //! A claim takes what is left over `share_divisor` x the number of claimants (guided
  //! self-scheduling with the factor of Polychronopoulos and Kuck at 1/share_divisor). At
  //! `granules`, every claim is the smallest: interleaved claims cost alike, so equal claims
  //! balance as well as shrinking ones and keep each GPU's automatic schedule in one size class.
  task_id share_divisor = 4;
  //! Claims each claimant keeps enqueued, so that its GPU never waits for the host's next claim.
  int in_flight = 2;
  //! Streams (each with its own single-GPU scheduler) a claimant's claims take in turn. Two let
  //! a claim's kernels start while the longest tasks of the one before still run, so a GPU does
  //! not idle through the tail of every claim (docs/multi-gpu.md, bench/multi_gpu).
  int streams = 2;
  //! The smallest claim, in parts of one claimant's even share: the last claims are at most
  //! 1/granules of a GPU's work, which bounds how far apart the GPUs finish.
  task_id granules = 4;
  //! The smallest claim in tasks, whatever the range: below it a claim's launches cost more than
  //! its tasks on a large GPU.
  task_id min_tasks = 4096;
};

//! Throws std::invalid_argument for a setting out of range.
inline void validate(const claim_settings& s) {
  if (s.share_divisor < 1) throw_invalid("claim share divisor", s.share_divisor, "must be >= 1");
  if (s.in_flight < 1 || s.in_flight > 16) {
    throw_invalid("claims in flight", s.in_flight, "must be in [1, 16]");
  }
  if (s.streams < 1 || s.streams > s.in_flight) {
    throw_invalid("claim streams", s.streams, "must be in [1, claims in flight]");
  }
  if (s.granules < 1) throw_invalid("claim granules", s.granules, "must be >= 1");
  if (s.min_tasks < 1) throw_invalid("claim min tasks", s.min_tasks, "must be >= 1");
}

//! The smallest claim of a range of `count` tasks over `claimants`: a power of two (claims of one
//! size share one calibration of the single-GPU automatic schedule, size classes being powers of
//! two), at least settings.min_tasks and count / (claimants x granules).
[[nodiscard]] inline task_id smallest_claim(task_id count, int claimants, const claim_settings& s) {
  const task_id parts = static_cast<task_id>(std::max(claimants, 1)) * s.granules;
  const task_id even = count / parts + (count % parts != 0);
  return std::bit_ceil(std::max({even, s.min_tasks, task_id{1}}));
}

//! The size of the next claim when `remaining` tasks are left: remaining over (claimants x
//! share divisor), rounded down to a power of two, at least `smallest`; the whole rest where
//! the claim would leave less than `smallest` behind; 0 when nothing is left.
[[nodiscard]] inline task_id claim_size(task_id remaining, int claimants, task_id smallest,
                                        const claim_settings& s) {
  if (remaining == 0) return 0;
  const task_id parts = static_cast<task_id>(std::max(claimants, 1)) * s.share_divisor;
  const task_id share = remaining / parts;
  task_id size = std::max(share == 0 ? task_id{0} : std::bit_floor(share), smallest);
  if (size >= remaining || remaining - size < smallest) size = remaining;
  return size;
}

//! What a counter at `first` before a fetch-and-add of `size` hands out of [0, count): the
//! added range clipped to the end, empty once the counter has passed it.
[[nodiscard]] inline claimed_range clip_claim(task_id first, task_id size, task_id count) {
  if (first >= count) return {count, 0};
  return {first, std::min(size, count - first)};
}

//! Part `part` of `parts` of the static equal split of [0, count): sizes differ by at most one,
//! the larger parts first. Exact for any 64-bit count (no count x part product).
[[nodiscard]] inline claimed_range equal_share(task_id count, int parts, int part) {
  if (parts < 1) throw_invalid("parts", parts, "must be >= 1");
  if (part < 0 || part >= parts) throw_invalid("part", part, "must be in [0, parts)");
  const auto n = static_cast<task_id>(parts);
  const auto i = static_cast<task_id>(part);
  const task_id base = count / n;
  const task_id extra = count % n;
  return {base * i + std::min(i, extra), base + (i < extra ? 1 : 0)};
}

//! Throws std::invalid_argument unless `count` tasks over `claimants` fit a counter.
inline void validate_range(task_id count, int claimants) {
  if (count > max_range_tasks) {
    throw_invalid("task count", count, "must be at most 2^48 (claims add past the end)");
  }
  if (claimants < 1 || claimants > max_claimants) {
    throw_invalid("claimants", claimants, "must be in [1, 4096]");
  }
}

//! The next claim from a counter of the range [0, count): read it, size the claim from what is
//! left (claim_size), fetch-and-add that size, clip the result. `counter` has `task_id read()`
//! and `task_id fetch_add(task_id)`: a host atomic, or an MPI window (one-sided atomics). A
//! claimant that sees the counter past the end adds nothing, so the counter stays below
//! count x (claimants + 1); every task of the range is handed out exactly once.
template <class Counter>
[[nodiscard]] claimed_range take_claim(Counter& counter, task_id count, int claimants,
                                       task_id smallest, const claim_settings& s) {
  const task_id seen = counter.read();
  if (seen >= count) return {count, 0};
  const task_id size = claim_size(count - seen, claimants, smallest, s);
  return clip_claim(counter.fetch_add(size), size, count);
}

}  // namespace microsched::multi_gpu
