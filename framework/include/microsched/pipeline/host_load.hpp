// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file host_load.hpp
//! How many cores the pipeline's helpers may take before a run.
//!
//! The pipeline's premise is idle host cores (zhang2010 §4.1). The original loop needs its
//! thread only for a burst of launches, but the pipelined loop needs the launching thread every
//! kernel time; on a host whose cores are all taken, that thread loses its core for whole
//! scheduler slices and the GPU idles (docs/decisions.md, "The pipeline's host check"). So before
//! each run the pipeline counts the other runnable threads (Linux /proc/loadavg), keeps one core
//! for the launching thread, lets at most the rest of the cores work as helpers, and runs the
//! original loop when too few are left.

#include <optional>
#include <string_view>

namespace microsched::pipeline {

//! The runnable count of a /proc/loadavg line ("0.50 0.40 0.30 3/345 1234": 3), or nothing if
//! the line does not have that form.
[[nodiscard]] std::optional<int> parse_loadavg_runnable(std::string_view line) noexcept;

//! Threads runnable on the host right now, the caller included (Linux: /proc/loadavg); nothing
//! where it cannot be read. In a container that shows the whole machine's count it may count
//! threads on cores this process cannot use: the pipeline then runs the original loop, the
//! safe side, and says so (pipeline_arguments::host_check turns the check off).
[[nodiscard]] std::optional<int> host_runnable_threads();

//! Helpers a run may use: the cores left when `others` runnable threads that are not the
//! pipeline's and the launching thread have one each, at most `pool` (>= 0).
[[nodiscard]] constexpr int helpers_for_host(int cores, int others, int pool) noexcept {
  const int free = cores - 1 - (others > 0 ? others : 0);
  return free < 0 ? 0 : (free < pool ? free : pool);
}

}  // namespace microsched::pipeline
