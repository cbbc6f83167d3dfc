// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file pathtrace_workload.hpp
//! Path tracing as a registered workload: heavy contexts (over 100 bytes), long steps, path
//! lengths that depend on where each path goes.

#include <cstdint>
#include <memory>
#include <vector>

#include "workload.hpp"

namespace microsched::workloads {

struct pathtrace_settings {
  std::uint32_t width = 1024;
  std::uint32_t height = 1024;
  std::uint32_t spp = 16;
  std::uint32_t max_depth = 64;
  std::uint32_t seed = 0;
};

[[nodiscard]] std::vector<parameter> pathtrace_parameters();
//! Throws std::invalid_argument naming the value for a size, sample count, depth or seed out of
//! range, or more than 2^32 paths.
[[nodiscard]] pathtrace_settings parse_pathtrace_settings(const options_map& options);
[[nodiscard]] std::unique_ptr<workload> make_pathtrace_workload(const pathtrace_settings& settings);

//! Bounces per path computed on the host, for task-length statistics and tests. The host's
//! floating point differs from the device's in the last bits, so single paths may differ; the
//! distribution does not.
[[nodiscard]] std::vector<std::uint32_t> pathtrace_task_lengths(const pathtrace_settings& settings);

}  // namespace microsched::workloads
