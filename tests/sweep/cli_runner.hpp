// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! The sweep program run in-process on the test doubles (fake, fake-area), its outputs captured
//! (defined in test_engine.cpp).

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "fake_workload.hpp"

namespace microsched::sweep::testing {

struct cli_run {
  int rc = -1;
  std::string out, err, progress;
};

cli_run run_cli(std::vector<std::string> args, std::shared_ptr<fake_counters> counters,
                const std::atomic<bool>* stop = nullptr, bool have_gpu = true);

}  // namespace microsched::sweep::testing
