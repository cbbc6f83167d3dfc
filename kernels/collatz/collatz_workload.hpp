// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file collatz_workload.hpp
//! Collatz total stopping times as a registered workload: short integer tasks with a mild tail.

#include <cstdint>
#include <memory>
#include <vector>

#include "workload.hpp"

namespace microsched::workloads {

struct collatz_settings {
  std::uint64_t tasks = 1u << 24;
  std::uint64_t first = 1ull << 32;  //!< start of task 0
};

[[nodiscard]] std::vector<parameter> collatz_parameters();
//! Throws std::invalid_argument naming the value for starts below 2 or beyond
//! kernels::collatz_last_safe_start (where an orbit could overflow 64 bits).
[[nodiscard]] collatz_settings parse_collatz_settings(const options_map& options);
[[nodiscard]] std::unique_ptr<workload> make_collatz_workload(const collatz_settings& settings);

//! Steps per task on the host (the kernels' counts), for task-length statistics and tests.
[[nodiscard]] std::vector<std::uint32_t> collatz_task_lengths(const collatz_settings& settings);

}  // namespace microsched::workloads
