#pragma once
//! @file sample_cli.hpp
//! What every sample shares: schedule options on the command line, the timing table, and main's
//! error handling (the only place that prints and exits).

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "microsched/measure/timing_stats.hpp"
#include "microsched/schedule/schedule_arguments.hpp"
#include "workload.hpp"

namespace microsched::samples {

//! Command-line text of a schedule, turned into schedule_arguments after parsing.
struct schedule_cli {
  std::string strategy = "hybrid";
  std::string fetch;  // empty: the library default
  std::uint64_t chunk = schedule_arguments{}.chunk;
  int deferral = schedule_arguments{}.deferral;
  int blocks_per_sm = 0;
  int repetitions = 7;
  std::string tuned;  // tuning file: use its schedule for this GPU and workload

  void add_to(CLI::App& app);
  //! The schedule from the options, or from the tuning file when --tuned names one. Throws
  //! std::invalid_argument naming a bad value, or when the file has no entry for this GPU.
  [[nodiscard]] schedule_arguments arguments(const std::string& workload) const;
};

//! Adds --NAME for every workload parameter, with its help text and default, into `options`.
void add_workload_options(CLI::App& app, const std::vector<workloads::parameter>& parameters,
                          workloads::options_map& options);

//! Times vanilla, warp persistent threads, microsched and the floor, prints the table with
//! ratios, and prints each kernel's registers and memory.
void print_comparison(workloads::workload& w, const schedule_arguments& args, int repetitions);

//! Prints the exactly-once check; returns false if it failed.
bool print_verification(workloads::workload& w, const schedule_arguments& args);

//! Runs `body`, turning exceptions into one line on stderr and an exit code: 1 for errors,
//! 2 for bad arguments, 3 when there is no GPU.
int run_main(const std::function<int()>& body);

}  // namespace microsched::samples
