// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file sample_cli.hpp
//! What every sample shares: the options common to all of them, the timing rows, the PNG output,
//! and main's error handling (the only place that prints and exits).

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "checked_cli.hpp"
#include "microsched/measure/timing_stats.hpp"
#include "microsched/schedule/schedule_arguments.hpp"
#include "png_writer.hpp"
#include "program_main.hpp"
#include "workload.hpp"

namespace microsched::samples {

//! --strategy and --repetitions: one help text for the termination and the switching samples.
void add_strategy_option(CLI::App& app, std::string& strategy);
void add_repetitions_option(CLI::App& app, int& repetitions);
//! Throws std::invalid_argument naming the value unless it asks for at least one timed run.
void validate_repetitions(int repetitions);

//! Command-line text of a schedule, turned into schedule_arguments after parsing.
struct schedule_cli {
  std::string strategy = "automatic";
  std::string fetch;  // empty: the library default
  std::uint64_t chunk = schedule_arguments{}.chunk;
  int deferral = schedule_arguments{}.deferral;
  int blocks_per_sm = 0;
  int budget = schedule_arguments{}.budget;
  int period = schedule_arguments{}.period;
  int repetitions = 7;
  std::string tuned;  // tuning file: use its schedule for this GPU and workload

  void add_to(CLI::App& app);
  //! The schedule from the options, or from the tuning file when --tuned names one. Throws
  //! std::invalid_argument naming a bad value, a missing or corrupt tuning file (read before the
  //! GPU is asked for its name), or a file with no entry for this GPU.
  [[nodiscard]] schedule_arguments arguments(const std::string& workload) const;
};

//! Adds --NAME for every workload parameter, with its help text and default, into `options`.
void add_workload_options(CLI::App& app, const std::vector<workloads::parameter>& parameters,
                          workloads::options_map& options);

//! -o,--output: the PNG a sample writes; an empty path writes none.
struct png_output {
  std::string path;

  void add_to(CLI::App& app);
  [[nodiscard]] bool wanted() const { return !path.empty(); }
  //! Throws std::invalid_argument (exit 2) unless the PNG can be written at the path: called
  //! before any device work, so that a bad path fails at once; creates and deletes nothing.
  void check() const;
  //! Writes the image and says where; a failure here (exit 1) is one the check could not see.
  void write(const rgb_image& image) const;
};

//! Prints the GPU the figures come from. Each sample calls it once its arguments are checked and
//! before any device work, so that without a GPU this is what fails: no_device_error, exit code
//! programs::no_gpu_exit_code (77) from run_main.
void print_device();

//! One timing row: median, range and speedup against vanilla; `name_width` pads the names so
//! that a sample's rows line up.
void print_time(const std::string& name, const timing_stats& t, double vanilla_ms, int name_width);

//! Times vanilla, warp persistent threads, microsched and the floor, prints the table with
//! ratios and each kernel's registers and memory; with `verify`, then checks and prints that
//! every task ran exactly once with vanilla's output. Returns the exit code: 1 if that failed.
int compare_and_verify(workloads::workload& w, const schedule_arguments& args, int repetitions,
                       bool verify);

//! Runs `body`, turning exceptions into one line on stderr and an exit code (program_main.hpp):
//! 1 for errors, 2 for bad arguments, 77 when there is no GPU.
using programs::run_main;

}  // namespace microsched::samples
