// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file prize_report.hpp
//! What measure_prize() (prize.cuh) returns, and its host-side helpers.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "microsched/config.hpp"
#include "microsched/measure/timing_stats.hpp"

namespace microsched {

//! A device buffer the program's end() writes: poisoned before each checked run, compared after.
//! With `restore`, a buffer the program also reads and updates in place (per-task random state,
//! running totals): never poisoned, saved before the first run, put back before each checked run
//! and on return, so that every checked run starts from the same state.
struct output_region {
  void* data = nullptr;
  std::size_t bytes = 0;
  bool restore = false;
  //! How it is compared with the direct run's: byte for byte, or as float or double values, each
  //! within `tolerance` of the other relative to the larger magnitude (totals that float atomics
  //! add in another order under each schedule). Values compare as numbers: -0 equals +0, a NaN
  //! equals a NaN, an infinity only the same infinity; a value that cancels to near 0 has no
  //! absolute slack.
  enum class compare_as { bytes, floats, doubles } values = compare_as::bytes;
  double tolerance = 0;  //!< for floats and doubles only
};

//! Throws std::invalid_argument naming the value: no data or size, a tolerance that is negative,
//! not finite, or given for a region compared as bytes, or float or double values whose size is
//! not a whole number of them.
void validate(const output_region& region);

//! What no schedule that runs each task in one thread beats: the longer of the uniform-work floor
//! and the longest task alone in one thread (ms; a longest time of 0 means not measured).
[[nodiscard]] inline double reachable_bound_ms(double floor_ms, double longest_alone_ms) {
  return floor_ms > longest_alone_ms ? floor_ms : longest_alone_ms;
}

struct prize_report {
  task_id tasks = 0;
  timing_stats direct, scheduled, floor;
  //! The task with the most steps (the first, if several), run alone in one thread: how long its
  //! chain of dependent steps takes with the GPU to itself. No schedule that runs each task in one
  //! thread beats it, so where it is near or above the floor, the floor is out of reach.
  timing_stats longest_alone;
  task_id longest_task = 0;
  std::string schedule;   //!< scheduler report: what ran and why
  double steps_mean = 0;  //!< steps per task
  std::uint64_t steps_max = 0;
  double warp_max_mean = 0;  //!< mean over warps (32 consecutive tasks) of the most steps
  std::uint64_t floor_steps =
      0;                         //!< the mean steps, rounded (the floor is timed at the exact mean)
  std::uint64_t missing = 0;     //!< tasks the scheduler never ended
  std::uint64_t duplicated = 0;  //!< tasks it ended more than once
  //! Output bytes that differ from the direct run's (regions compared as values: the bytes of the
  //! values outside the tolerance).
  std::uint64_t differing_bytes = 0;
  [[nodiscard]] bool exactly_once() const { return missing == 0 && duplicated == 0; }
  [[nodiscard]] bool outputs_equal() const { return differing_bytes == 0; }
  [[nodiscard]] double speedup() const { return direct.median_ms / scheduled.median_ms; }
  //! What removing divergence could gain at most: direct time over floor time.
  [[nodiscard]] double prize() const { return direct.median_ms / floor.median_ms; }
  //! Fraction of the floor's speed the scheduler reaches (floor ms / scheduled ms).
  [[nodiscard]] double of_floor() const { return floor.median_ms / scheduled.median_ms; }
  //! The larger of the floor and the longest task alone: a bound no schedule beats.
  [[nodiscard]] double bound_ms() const {
    return reachable_bound_ms(floor.median_ms, longest_alone.median_ms);
  }
  [[nodiscard]] std::string summary() const;
};

namespace detail {
void summarize_steps(const std::vector<std::uint32_t>& steps, prize_report& r);
std::uint64_t count_differing_bytes(const std::vector<std::vector<unsigned char>>& want,
                                    const std::vector<output_region>& outputs, cudaStream_t stream);
//! The bytes of `got` that differ from `want` as `region` compares them (host copies of it).
std::uint64_t differing_bytes(const output_region& region, const std::vector<unsigned char>& want,
                              const std::vector<unsigned char>& got);
std::vector<std::vector<unsigned char>> copy_outputs(const std::vector<output_region>& outputs,
                                                     cudaStream_t stream);
void poison(const std::vector<output_region>& outputs, cudaStream_t stream);
//! The regions marked `restore`, copied on the device (one buffer each, in order).
std::vector<std::vector<unsigned char>> save_state(const std::vector<output_region>& outputs,
                                                   cudaStream_t stream);
void restore_state(const std::vector<output_region>& outputs,
                   const std::vector<std::vector<unsigned char>>& saved, cudaStream_t stream);
}  // namespace detail

}  // namespace microsched
