// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// task_lengths: the distribution of steps per task of a workload, computed on the CPU with the
// kernels' arithmetic (no GPU needed). Usage: task_lengths julia|collatz|walk [name=value ...]
// e.g. task_lengths julia view=dust width=4096 height=4096 precision=double
#include <cstdio>
#include <exception>
#include <string>

#include "collatz/collatz_workload.hpp"
#include "julia/julia_workload.hpp"
#include "task_lengths.hpp"
#include "walk/walk_workload.hpp"

using namespace microsched::workloads;

int main(int argc, char** argv) {
  try {
    if (argc < 2)
      throw std::invalid_argument("usage: task_lengths julia|collatz|walk [name=value ...]");
    const std::string name = argv[1];
    options_map options;
    for (int i = 2; i < argc; ++i) {
      const std::string arg = argv[i];
      const auto eq = arg.find('=');
      if (eq == std::string::npos) throw std::invalid_argument(arg + ": expected name=value");
      options[arg.substr(0, eq)] = arg.substr(eq + 1);
    }
    std::vector<std::uint32_t> steps;
    if (name == "julia") {
      steps = julia_task_lengths(parse_julia_settings(options));
    } else if (name == "collatz") {
      steps = collatz_task_lengths(parse_collatz_settings(options));
    } else if (name == "walk") {
      steps = walk_task_lengths(parse_walk_settings(options));
    } else {
      throw std::invalid_argument("workload '" + name + "': expected julia, collatz or walk");
    }
    const task_length_stats s = summarize_task_lengths(steps);
    std::printf("%s: %llu tasks, steps per task mean %.2f, p99 %u, max %u; warp max / mean %.2f\n",
                name.c_str(), static_cast<unsigned long long>(s.tasks), s.mean, s.p99, s.max,
                s.warp_max_over_mean);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
