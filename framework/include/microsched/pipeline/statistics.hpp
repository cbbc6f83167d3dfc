// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file statistics.hpp
//! What the pipeline did, per iteration, in a form a user can print.

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace microsched::pipeline {

//! Why an iteration ran the original kernel.
enum class fallback {
  none,              //!< it ran the optimised kernel
  warm_up,           //!< no transformation was started for this chunk (first Δ chunks)
  not_ready,         //!< the transformation or its copy did not finish before the GPU needed it
  transform_failed,  //!< the transformation (or a user function) threw; see `error`
  controller_off,    //!< the adaptive control switched the transformation off
  memory_cap,        //!< no remap method fits the user's memory limit
  slot_busy,         //!< the staging slot was still held by an abandoned transformation
  chunk_share,       //!< all-or-nothing method: the chunk share r left this chunk to the original
  awaiting_profile,  //!< a profiled chunk missed; the control awaits the verdict on a later one
  host_busy,         //!< too few idle host cores for the helpers (pipeline_arguments::host_check)
  backoff,           //!< an earlier pipelined run lost to the original loop (run_backoff.hpp)
};

[[nodiscard]] const char* to_string(fallback f) noexcept;

struct iteration_record {
  std::size_t iteration = 0;
  bool optimised = false;
  fallback reason = fallback::none;
  double ratio = 0;          //!< r of this chunk's transformation (0: none)
  int segments = 0;          //!< s of this chunk's transformation
  double transform_ms = -1;  //!< helper-thread wall time of this chunk's transformation
  double kernel_ms = -1;     //!< GPU time (events); -1 when not timed (control off)
  double launch_ms = 0;      //!< host time from the start of run() to this launch's return
  //! host time from the start of run() to the end of this chunk's transformation (-1: none, or
  //! not finished when the chunk was launched)
  double transform_end_ms = -1;
  //! GPU time from the end of the previous chunk to the end of this one (events): its copies,
  //! kernel and any idle gap before it; what the loss guard compares with Torg. -1: not timed.
  double step_ms = -1;
  double metric_before = 0;  //!< e.g. warp trip cost or memory transactions, original mapping
  double metric_after = 0;   //!< the same after the remap (the part transformed)
  std::string error;         //!< what the transformation threw
};

struct pipeline_statistics {
  std::string method;     //!< remap method chosen ("" when none fits)
  int method_index = -1;  //!< its index in the program's methods() (-1: none)
  //! Why a method listed before it was not taken (each one over the memory cap, with the bytes it
  //! needs), then "took NAME"; empty when the first method was taken.
  std::string method_note;
  //! How the chosen method is profiled and what r is a share of (profiling.hpp): "partial" (of
  //! each chunk's elements) or "whole chunk" (of the chunks); "" when no method fits.
  std::string profiling;
  std::size_t host_bytes = 0;    //!< host memory the pipeline added (pinned staging)
  std::size_t device_bytes = 0;  //!< device memory the pipeline added
  std::size_t memory_limit = 0;  //!< the user's cap
  int slots = 0;                 //!< staging slots (chunks in flight)
  int depth = 0;                 //!< Δ actually used
  int helper_threads = 0;
  //! Helpers this run let work: the pool, or fewer where the host check found its cores busy.
  int helpers_active = 0;
  //! Runnable threads on the host that were not the pipeline's when the run started (-1: not
  //! checked or unknown).
  int host_others = -1;
  double run_ms = -1;  //!< wall time of the run, launches to the last kernel's end
  //! The original loop's estimated time for this run's chunks (run_backoff.hpp; -1: unknown)
  double original_estimate_ms = -1;
  bool lost = false;  //!< a pipelined run slower than that estimate beyond the tolerance
  //! mean time of the chunks that ran the original kernel (copies and kernel, events): the Torg
  //! the control compared with; -1 when none was timed
  double original_ms = -1;
  std::string controller_state;   //!< final phase of the adaptive control
  std::string controller_reason;  //!< why it switched off
  std::vector<iteration_record> iterations;

  [[nodiscard]] std::size_t optimised_count() const;
  //! One line: method, memory, slots, optimised/total, controller state.
  [[nodiscard]] std::string summary() const;
  //! The summary and a table with one row per iteration.
  void print(std::ostream& out) const;
};

}  // namespace microsched::pipeline
