// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file latency.hpp
//! Region latencies, fitted on the current GPU to timed launches and cached per GPU in a small
//! text file, so a program measures once per GPU and kernel.
//!
//! A probe_mode::time launch gives every item's BBV and its lane's cycles; a warp's time is its
//! longest lane. The model charges a warp sum_r latency[r] * warp_counts[r] (the largest count
//! of region r among its lanes, eqs. 2, 3, or for a branch inside a loop its expected
//! iterations; metrics.hpp), so the latencies are fitted to exactly that: non-negative least
//! squares of the warps' cycles on their per-region warp counts. Fit on the original order
//! (divergent warps) together with the items sorted by BBV (convergent warps of every kind):
//! the original alone varies too little from warp to warp to tell the regions apart. The fitted
//! values are a full GPU's cycles per warp execution, memory waits and issue contention
//! included. Regions whose counts rise together share their cost (a coefficient may be 0).
//!
//! Why not a clock around every region execution: reads of the clock serialise the region, and a
//! region's cost in a convergent warp is not its cost in a divergent one, so such cycles predict
//! the time ratios far worse than fitted latencies (docs/decisions.md, "Fitted region
//! latencies").

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "microsched/model/bbv.hpp"
#include "microsched/model/metrics.hpp"

namespace microsched::model {

//! One probe_mode::time launch: slot s ran item order[s]; cycles[item] is that lane's cycles
//! (items the launch did not run are ignored).
struct timed_launch {
  std::span<const std::uint32_t> order;
  std::span<const std::uint32_t> cycles;
};

//! Each warp's cycles (its longest lane), warps in launch order. Throws std::invalid_argument
//! on an empty order, an item outside `cycles`.
[[nodiscard]] std::vector<double> warp_cycles(const timed_launch& launch);

//! Region latencies fitted to the warps of `launches` (non-negative least squares of each
//! warp's cycles on its per-region warp_counts, each warp weighted by 1 / its cycles). A region
//! no warp executes gets 0. Throws std::invalid_argument on bad BBVs, no launches, a launch that is
//! not a list of items, or timings that give no positive latency.
[[nodiscard]] std::vector<double> fit_latencies(const bbv_matrix& bbv,
                                                std::span<const timed_launch> launches);

//! How much faster a warp runs in a block alone on its SM than on a full GPU
//! (gpu_shape::lone_block_speedup): the summed cycles of the lone launch's warps in `full` over
//! their cycles in `lone`, at least 1. `lone` runs whole blocks of `full` (one per SM): each of
//! its warps is a warp of `full`, the same items in the same slots, so no latency enters the
//! ratio. Throws std::invalid_argument when a warp of `lone` is not one of `full`.
[[nodiscard]] double lone_block_speedup(const timed_launch& full, const timed_launch& lone);

//! The lone launch for lone_block_speedup: `blocks` blocks of `block_threads` slots spread
//! evenly over `order`'s blocks before its last wave, concatenated. `last_wave_blocks` is the
//! blocks the GPU holds at once (SMs times resident blocks per SM). A block of the last wave
//! shares its SM with fewer and fewer warps as the launch drains, so its cycles in the full
//! launch are not full-occupancy cycles: where the heavy blocks come last (an order sorted by
//! BBV), they would pull the ratio towards 1. A launch of one wave or less uses every block.
[[nodiscard]] std::vector<std::uint32_t> lone_blocks(std::span<const std::uint32_t> order,
                                                     std::size_t blocks, std::size_t block_threads,
                                                     std::size_t last_wave_blocks);

//! One file per GPU in a folder: `<gpu name with [^A-Za-z0-9] as '_'>.latency`, one line per
//! kernel, `<kernel key> <regions> <latency>...`. Writes replace the whole file atomically.
class latency_cache {
 public:
  explicit latency_cache(std::filesystem::path folder) : folder_(std::move(folder)) {}

  //! The file that holds `gpu_name`'s latencies.
  [[nodiscard]] std::filesystem::path file_for(std::string_view gpu_name) const;

  //! The latencies stored for (gpu, kernel), or nothing when absent or unreadable.
  [[nodiscard]] std::optional<std::vector<double>> load(std::string_view gpu_name,
                                                        std::string_view kernel_key) const;

  //! Stores (replaces) the latencies of (gpu, kernel); keeps the other kernels' lines. Throws
  //! std::invalid_argument for a key with white space or empty latencies, std::runtime_error
  //! when the file cannot be written.
  void store(std::string_view gpu_name, std::string_view kernel_key,
             std::span<const double> latency) const;

 private:
  std::filesystem::path folder_;
};

}  // namespace microsched::model
