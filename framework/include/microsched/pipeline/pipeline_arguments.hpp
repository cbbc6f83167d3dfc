// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file pipeline_arguments.hpp
//! What a user chooses for the chunk pipeline (chunk_pipeline.hpp): depth, helpers, memory limit,
//! the adaptive control, and the remap methods a program offers with the memory each one costs.

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "microsched/error.hpp"
#include "microsched/pipeline/adaptive_control.hpp"

namespace microsched::pipeline {

//! One way a program can remap a chunk, with the memory one staging slot costs. A program lists
//! them in order of preference; the pipeline takes the first that fits the user's memory limit
//! (zhang2011 §5.4: data reordering first, job swapping when its space is intolerable).
struct remap_method {
  std::string name;
  std::size_t host_bytes_per_slot = 0;    //!< pinned staging
  std::size_t device_bytes_per_slot = 0;  //!< device copy of the staging
  //! false: a remap of part of a chunk saves nothing (e.g. the kernel still needs the whole
  //! original input), so the pipeline transforms whole chunks, each on every helper, and r is
  //! the share of chunks transformed (the others run the original kernel meanwhile).
  bool partial = true;
  //! One-off bytes, independent of the slots: e.g. job swapping for a reference pattern that is
  //! the same in every chunk keeps one mapping on the device, however deep the pipeline.
  std::size_t host_bytes_fixed = 0;
  std::size_t device_bytes_fixed = 0;
};

//! Bytes a method needs for `slots` staging slots (its one-off bytes included).
[[nodiscard]] inline std::size_t method_bytes(const remap_method& m, std::size_t slots) noexcept {
  return m.host_bytes_fixed + m.device_bytes_fixed +
         (m.host_bytes_per_slot + m.device_bytes_per_slot) * slots;
}

//! User-facing arguments of the pipeline.
struct pipeline_arguments {
  int depth = 1;                               //!< Δ: chunks transformed ahead of the GPU
  int threads_per_chunk = 2;                   //!< helper threads working on one chunk
  std::size_t memory_limit = 512u << 20;       //!< bytes the pipeline may add, host + device
  int granularity = 32;                        //!< piece boundaries are multiples of this (a warp)
  std::chrono::microseconds poll_interval{0};  //!< sleep between two stream queries; 0: yield
  //! A helper with nothing queued polls for this long before it sleeps (worker_pool): the next
  //! chunk's pieces then start at once on every helper. 0: sleep at once.
  std::chrono::microseconds helper_spin{200};
  //! Host check (host_load.hpp): before each run, and before the
  //! control re-arms, count the host's other runnable threads; helpers take at most the cores
  //! left after those and the launching thread, and with fewer than `host_min_helpers` left the
  //! run launches the original loop (fallback::host_busy). Off: the helpers never look.
  bool host_check = true;
  //! Fewest helpers worth a pipelined run; 0: a quarter of the pool, at least 1.
  int host_min_helpers = 0;
  //! Threads runnable on the host, the caller included, as /proc/loadavg counts them (a
  //! negative value: unknown, no limit). Empty: host_runnable_threads(). Tests script it.
  std::function<int()> host_runnable;
  //! Back-off across runs (run_backoff.hpp): a run whose wall time exceeds the original loop's
  //! estimate by more than this share is a loss, and the next 1, 2, 4, ... runs (at most
  //! `backoff_max_runs`; 0: never) launch the original loop (fallback::backoff).
  double backoff_tolerance = 0.05;
  int backoff_max_runs = 32;
  adaptive_arguments control{};
};

//! Throws std::invalid_argument naming the first bad value.
inline void validate(const pipeline_arguments& args) {
  if (args.depth < 1 || args.depth > 64) throw_invalid("depth", args.depth, "must be in 1..64");
  if (args.threads_per_chunk < 1 || args.threads_per_chunk > 256)
    throw_invalid("threads_per_chunk", args.threads_per_chunk, "must be in 1..256");
  if (args.granularity < 1) throw_invalid("granularity", args.granularity, "must be >= 1");
  if (args.helper_spin.count() < 0 || args.helper_spin.count() > 100000)
    throw_invalid("helper_spin_us", args.helper_spin.count(), "must be in 0..100000");
  if (args.poll_interval.count() < 0)
    throw_invalid("poll_interval_us", args.poll_interval.count(), "must be >= 0");
  if (args.host_min_helpers < 0 || args.host_min_helpers > 4096)
    throw_invalid("host_min_helpers", args.host_min_helpers, "must be in 0..4096");
  if (!(args.backoff_tolerance >= 0 && args.backoff_tolerance <= 10))
    throw_invalid("backoff_tolerance", args.backoff_tolerance, "must be in [0, 10]");
  if (args.backoff_max_runs < 0 || args.backoff_max_runs > (1 << 20))
    throw_invalid("backoff_max_runs", args.backoff_max_runs, "must be in 0..1048576");
  validate(args.control);
}

}  // namespace microsched::pipeline
