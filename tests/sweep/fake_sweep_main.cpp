// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// sweep_fake: the sweep program on the test-double workload, no GPU needed. For trying the
// command line and looking at the outputs (docs/sweep.md); timings are made up.
#include <unistd.h>

#include <iostream>

#include "fake_workload.hpp"
#include "sweep/cli.hpp"

int main(int argc, char** argv) {
  using namespace microsched::sweep;
  cli_environment env;
  env.factory = testing::fake_factory(std::make_shared<testing::fake_counters>());
  env.workload_names = [] { return std::vector<std::string>{"fake"}; };
  env.gpu_name = [] { return std::string("Fake GPU (made-up timings)"); };
  env.out = &std::cout;
  env.err = &std::cerr;
  env.progress_interactive = ::isatty(STDERR_FILENO) != 0;
  return sweep_main(std::vector<std::string>(argv + 1, argv + argc), env);
}
