// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// montecarlo_branch: the branch-divergence test of frey2012 §5.1. Each task runs an outer loop
// of 1000 iterations; with probability p an iteration enters a branch that sums 1000 random
// numbers. Times the vanilla kernel, the best direct form and the default (the automatic
// switching schedule); with a fixed --strategy, the termination-only driver and context switching.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "registry_cli.hpp"
#include "sample_cli.hpp"
#include "switching_cli.hpp"
#include "switching_workloads.hpp"

using namespace microsched;

namespace {

//! The workload: the branch's probability and cost, the tasks, the seed (defaults and help from
//! the registry's "montecarlo-branch", registry_option.hpp) and the march window.
void add_workload_options(CLI::App& app,
                          switching_workloads::montecarlo_branch_settings& settings) {
  const samples::registry_options& registry = samples::montecarlo_branch_options;
  samples::add_registry_checked(app, registry, "--p", settings.probability, 0.0f, 1.0f);
  samples::add_registry_checked(app, registry, "--tasks", settings.tasks, std::uint64_t{1},
                                std::uint64_t{1} << 30);
  samples::add_registry_checked(app, registry, "--outer", settings.outer, std::uint32_t{1},
                                std::uint32_t{1} << 20);
  samples::add_registry_checked(app, registry, "--inner", settings.inner, std::uint32_t{1},
                                std::uint32_t{1} << 20);
  samples::add_registry_checked(app, registry, "--seed", settings.seed, 0ull,
                                std::numeric_limits<unsigned long long>::max());
  // 16: the fastest window of the switching bench at p = 0.01 (bench_switching mc_branch/).
  settings.march_window = 16;
  programs::add_checked(app, "--window", settings.march_window,
                        "outer iterations one step marches at most, stopping at the first that "
                        "enters the branch (for every kernel; the sums do not depend on it)",
                        std::uint32_t{1}, std::uint32_t{4096});
}

//! --verify under the default: every form of its list against vanilla; returns the exit code.
int verify_default_forms(switching_workloads::montecarlo_branch_runner& runner) {
  bool passed = true;
  for (const auto& f : runner.verify_forms()) {
    const auto& r = f.report;
    if (!r.passed) {
      std::printf("verify: FAILED: %s: %llu missing, %llu duplicated, %llu differ: %s\n",
                  f.form.c_str(), static_cast<unsigned long long>(r.missing),
                  static_cast<unsigned long long>(r.duplicated),
                  static_cast<unsigned long long>(r.mismatched), r.detail.c_str());
    }
    passed = passed && r.passed;
  }
  std::printf(
      "verify: %s: every form of the default's list ran each task once, sums and "
      "entries equal to vanilla\n",
      passed ? "passed" : "FAILED");
  return passed ? 0 : 1;
}

//! --verify of a fixed --strategy: each task once with vanilla's sums; returns the exit code.
int verify_scheduled(switching_workloads::montecarlo_branch_runner& runner,
                     const switching_workloads::variant& v) {
  const auto r = runner.check(v);
  std::printf(
      "verify: %s: %llu tasks, %llu missing, %llu duplicated, %llu differ from vanilla%s%s\n",
      r.passed ? "passed" : "FAILED", static_cast<unsigned long long>(r.tasks),
      static_cast<unsigned long long>(r.missing), static_cast<unsigned long long>(r.duplicated),
      static_cast<unsigned long long>(r.mismatched), r.detail.empty() ? "" : ": ",
      r.detail.c_str());
  return r.passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Monte Carlo branch-divergence test (frey2012 5.1): an outer loop of --outer iterations, "
      "each entering with probability --p a branch that sums --inner random numbers (Philox). "
      "Prints the vanilla kernel (one thread per task), the termination-only persistent driver "
      "and microsched context switching (the branch is managed).\n"
      "Example: montecarlo_branch --p 0.01 --verify"};
  switching_workloads::montecarlo_branch_settings settings;
  add_workload_options(app, settings);
  bool verify = false;
  app.add_flag("--verify", verify,
               "check every task's sum and branch count against vanilla (bit for bit: the "
               "numbers are counter-based) and that each task ends exactly once");
  samples::switching_cli cli;
  cli.add_to(app, samples::montecarlo_branch_options);
  MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);

  return samples::run_main("montecarlo_branch", [&] {
    const auto v = cli.variant();
    samples::print_device();
    switching_workloads::montecarlo_branch_runner runner(settings);
    const timing_options options = cli.timing();
    std::fprintf(stderr, "timing %s...\n", runner.describe().c_str());
    const auto vanilla = runner.time_vanilla(options);
    const double entries = runner.mean_entries();
    if (cli.automatic()) {
      const auto d = runner.time_default(options);
      std::printf("%s: %.2f branch entries per task on average\n", runner.describe().c_str(),
                  entries);
      samples::print_time("vanilla", vanilla, vanilla.median_ms);
      samples::print_default(d, vanilla.median_ms);
      return verify ? verify_default_forms(runner) : 0;
    }
    const auto scheduled = samples::time_scheduled(runner, v, options);
    std::printf("%s: %.2f branch entries per task on average\n", runner.describe().c_str(),
                entries);
    samples::print_time("vanilla", vanilla, vanilla.median_ms);
    samples::print_scheduled(scheduled, vanilla.median_ms);
    samples::print_switching(runner, v);
    return verify ? verify_scheduled(runner, v) : 0;
  });
}
