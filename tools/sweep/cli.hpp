// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file cli.hpp
//! The sweep program's command line, as a function so that tests can run it in-process with a
//! test-double workload factory.

#include <atomic>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "microsched/device.hpp"
#include "sweep/engine.hpp"

namespace microsched::sweep {

//! Exit codes of the sweep program: those of every microsched program (samples/common/
//! program_main.hpp), and 130 for an interrupted sweep.
enum exit_code : int {
  exit_ok = 0,
  exit_failed = 1,        //!< a run error (CUDA, a file that cannot be written)
  exit_check_failed = 1,  //!< a point failed its exactly-once check
  exit_bad_input = 2,     //!< bad arguments, unwritable output, a journal that does not match
  exit_no_gpu = microsched::no_gpu_exit_code,  //!< 77: no usable CUDA GPU, nothing was run
  exit_interrupted = 130,  //!< stopped by SIGINT; finished points are kept for --resume
};

struct cli_environment {
  workload_factory factory;
  std::function<std::vector<std::string>()> workload_names;
  std::function<std::string()> gpu_name;  //!< device name (throws no_device_error without a GPU)
  std::ostream* out = nullptr;            //!< summary, --list, --dry-run
  std::ostream* err = nullptr;            //!< errors
  std::FILE* progress = stderr;           //!< progress bar (nullptr: none)
  bool progress_interactive = false;      //!< redraw in place (stderr is a terminal)
  const std::atomic<bool>* stop = nullptr;
};

//! Runs the sweep program; returns its exit code. Never throws.
[[nodiscard]] int sweep_main(const std::vector<std::string>& args, const cli_environment& env);

//! Writes sweep.csv, sweep.json and summary.txt into `folder`, each written whole or not at all
//! (the plots are drawn from sweep.json by plot_sweep.py). Returns the paths.
std::vector<std::string> write_outputs(const sweep_results& results, const std::string& folder);

//! Stores each scenario's best setting under its scenario key and the best constant setting
//! (or the only scenario's best) as the workload's default, in the tuning file at `file`
//! (merged with what it holds, written atomically). Returns the number of entries written.
std::size_t save_tuning(const sweep_results& results, const std::string& file);

}  // namespace microsched::sweep
