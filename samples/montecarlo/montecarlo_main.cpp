// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// montecarlo: termination divergence (frey2012 §5.1). Every task draws random numbers until one
// falls below the kill probability; microsched's time is printed next to vanilla, warp
// persistent threads and the uniform-work floor.
#include <CLI/CLI.hpp>

#include "montecarlo/montecarlo_workload.hpp"
#include "sample_cli.hpp"

using namespace microsched;

int main(int argc, char** argv) {
  CLI::App app{
      "Monte Carlo termination divergence: each task draws uniform random numbers (Philox) until "
      "one falls below the kill probability, so task lengths are geometric with mean 1/kill. "
      "Prints microsched's time next to vanilla, warp persistent threads and the floor.\n"
      "Example: montecarlo --kill 0.001 --verify"};
  workloads::options_map options;
  samples::add_workload_options(app, workloads::montecarlo_parameters(), options);
  bool verify = false;
  app.add_flag("--verify", verify, "check every task against the vanilla kernel, each task once");
  samples::schedule_cli schedule;
  schedule.add_to(app);
  MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);

  return samples::run_main("montecarlo", [&] {
    const auto settings = workloads::parse_montecarlo_settings(options);
    const schedule_arguments args = schedule.arguments("montecarlo");  // --tuned asks the GPU
    samples::print_device();
    auto w = workloads::make_montecarlo_workload(settings);
    return samples::compare_and_verify(*w, args, schedule.repetitions, verify);
  });
}
