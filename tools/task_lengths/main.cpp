// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// task_lengths: the distribution of steps per task of a workload, computed on the CPU with the
// kernels' arithmetic (no GPU needed). Usage: task_lengths julia|collatz|walk|pathtrace [name=value
// ...] e.g. task_lengths julia view=dust width=4096 height=4096 precision=double
#include <CLI/CLI.hpp>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "checked_cli.hpp"
#include "collatz/collatz_workload.hpp"
#include "julia/julia_workload.hpp"
#include "pathtrace/pathtrace_workload.hpp"
#include "task_lengths.hpp"
#include "walk/walk_workload.hpp"

using namespace microsched;
using namespace microsched::workloads;

namespace {

//! The help's list of every workload's options, with their defaults.
std::string describe_options() {
  std::string text;
  for (const auto& [name, parameters] :
       {std::pair{"julia", julia_parameters()}, std::pair{"collatz", collatz_parameters()},
        std::pair{"walk", walk_parameters()}, std::pair{"pathtrace", pathtrace_parameters()}}) {
    text += std::string("\n") + name + ":";
    for (const auto& p : parameters) {
      text += "\n  " + p.name + "=" + p.default_value + "  " + p.help;
    }
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Prints the distribution of steps per task of a workload (tasks, mean, 99th percentile, "
      "maximum, and the mean over warps of the warp's longest task over the mean), computed on "
      "the CPU with the kernels' arithmetic; no GPU needed.\n"
      "Example: task_lengths julia view=dust width=4096 height=4096 precision=double"};
  app.footer("Workload options (name=value):" + describe_options());
  std::string name;
  std::vector<std::string> settings;
  app.add_option("workload", name, "julia, collatz, walk or pathtrace")
      ->check(CLI::IsMember({"julia", "collatz", "walk", "pathtrace"}));
  app.add_option("options", settings, "the workload's options, name=value (listed below)");
  MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);

  return programs::run_main("task_lengths", [&] {
    if (name.empty())
      throw std::invalid_argument("a workload is required: julia, collatz, walk or pathtrace");
    options_map options;
    for (const std::string& setting : settings) {
      const auto eq = setting.find('=');
      if (eq == std::string::npos || eq == 0) {
        throw std::invalid_argument("'" + setting + "': expected name=value (see --help)");
      }
      options[setting.substr(0, eq)] = setting.substr(eq + 1);
    }
    std::vector<std::uint32_t> steps;
    if (name == "julia") {
      steps = julia_task_lengths(parse_julia_settings(options));
    } else if (name == "collatz") {
      steps = collatz_task_lengths(parse_collatz_settings(options));
    } else if (name == "walk") {
      steps = walk_task_lengths(parse_walk_settings(options));
    } else {
      steps = pathtrace_task_lengths(parse_pathtrace_settings(options));
    }
    const task_length_stats s = summarize_task_lengths(steps);
    std::printf("%s: %llu tasks, steps per task mean %.2f, p99 %u, max %u; warp max / mean %.2f\n",
                name.c_str(), static_cast<unsigned long long>(s.tasks), s.mean, s.p99, s.max,
                s.warp_max_over_mean);
    return 0;
  });
}
