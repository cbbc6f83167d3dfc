// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file montecarlo_workload.hpp
//! Monte Carlo termination divergence as a registered workload (frey2012 §5.1).

#include <memory>

#include "workload.hpp"

namespace microsched::workloads {

struct montecarlo_settings {
  std::uint64_t tasks = 1u << 24;
  float kill_probability = 0.01f;
  unsigned long long seed = 1234;
};

[[nodiscard]] std::vector<parameter> montecarlo_parameters();
[[nodiscard]] montecarlo_settings parse_montecarlo_settings(const options_map& options);
[[nodiscard]] std::unique_ptr<workload> make_montecarlo_workload(
    const montecarlo_settings& settings);

}  // namespace microsched::workloads
