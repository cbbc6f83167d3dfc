// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file walk_workload.hpp
//! Random walks as a registered workload: the shortest tasks, a geometric tail, cheap steps.

#include <cstdint>
#include <memory>
#include <vector>

#include "workload.hpp"

namespace microsched::workloads {

struct walk_settings {
  std::uint64_t tasks = 1u << 24;
  std::int32_t half_width = 4;  //!< the walk ends at -half_width or +half_width
  std::uint32_t seed = 0;
};

[[nodiscard]] std::vector<parameter> walk_parameters();
//! Throws std::invalid_argument naming the value for a count, half-width or seed out of range.
[[nodiscard]] walk_settings parse_walk_settings(const options_map& options);
[[nodiscard]] std::unique_ptr<workload> make_walk_workload(const walk_settings& settings);

//! Steps per task on the host (the kernels' counts), for task-length statistics and tests.
[[nodiscard]] std::vector<std::uint32_t> walk_task_lengths(const walk_settings& settings);

}  // namespace microsched::workloads
