// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// sweep: the parameter-sweep program. Everything but signals and the GPU lives in cli.cpp.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <iostream>

#include "microsched/device.hpp"
#include "sweep/cli.hpp"

namespace {
std::atomic<bool> stop_requested{false};

extern "C" void on_interrupt(int) {
  stop_requested.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the program at once
}
}  // namespace

int main(int argc, char** argv) {
  using namespace microsched;
  std::signal(SIGINT, on_interrupt);
  sweep::cli_environment env;
  env.factory = sweep::registry_factory();
  env.workload_names = [] { return workloads::workload_names(); };
  env.gpu_name = [] { return current_device().name; };
  env.out = &std::cout;
  env.err = &std::cerr;
  env.progress = stderr;
  env.progress_interactive = ::isatty(STDERR_FILENO) != 0;
  env.stop = &stop_requested;
  return sweep::sweep_main(std::vector<std::string>(argv + 1, argv + argc), env);
}
