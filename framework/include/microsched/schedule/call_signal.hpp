// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file call_signal.hpp
//! A work signature that a direct run leaves at no cost to its caller: a few sampled blocks of
//! the direct kernel (driver/signalled_kernel.cuh) count their steps and read the GPU's clock,
//! and write one slot each to host memory the host reads at the next call, with no event, copy
//! or wait. What the slots hold is what a counted slice holds (step_counts), plus the run's
//! time from its first sampled block's start to its last sampled block's end.

#include <cstdint>
#include <string>

#include "microsched/schedule/step_counts.hpp"

namespace microsched {

//! One sampled block's report: two 16-byte halves, each written by one vector store of the
//! block's first thread and each carrying the run's tag, so that a half the host reads with the
//! tag holds that run's values (an aligned 16-byte store lands in one cache line as one write)
//! with no fence in the kernel, whose completion the caller waits for anyway. Counts are 32-bit
//! (a block's saturate at 2^32 - 1).
struct alignas(16) signal_slot {
  std::uint32_t tag = 0;          //!< the run that wrote the counts
  std::uint32_t over_budget = 0;  //!< tasks of more than step_counts::budget steps
  std::uint32_t steps = 0;        //!< over the block's tasks
  std::uint32_t warp_maxima = 0;  //!< over its warps, the slowest lane's steps
  std::uint32_t clock_tag = 0;    //!< the run that wrote the clock
  std::uint32_t start_low = 0;    //!< the GPU's clock (ns) when the block started: low word
  std::uint32_t start_high = 0;   //!< ... high word
  std::uint32_t elapsed_ns = 0;   //!< from its start to its last task's end
};
static_assert(sizeof(signal_slot) == 32, "the slot layout is shared with the device");

//! Which blocks of a direct grid report: every 2^shift-th, at most `most_slots` of them and at
//! most a quarter of the grid.
struct signal_layout {
  static constexpr int most_slots = 64;
  static constexpr std::uint32_t least_shift = 2;
  std::uint32_t shift = least_shift;
  int slots = 0;                    //!< sampled blocks
  std::uint64_t sampled_tasks = 0;  //!< tasks of the sampled blocks
};

//! The layout for a grid of `blocks` blocks of `block_threads` covering `tasks` tasks.
[[nodiscard]] signal_layout layout_signal(std::uint64_t blocks, int block_threads,
                                          std::uint64_t tasks);

//! What the slots of one run say; `complete` false when a half of a slot does not carry the
//! run's tag yet (the run is still in flight, or the caller never waited for it).
struct call_signal {
  bool complete = false;
  bool counted = false;  //!< the blocks counted their steps (else `counts` is empty)
  step_counts counts;
  std::uint64_t tasks = 0;  //!< sampled
  double ms = 0;            //!< the first sampled start to the last sampled end
};

[[nodiscard]] call_signal read_signal(const signal_slot* slots, const signal_layout& layout,
                                      std::uint32_t tag);

}  // namespace microsched
