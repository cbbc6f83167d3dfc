#pragma once
//! @file workload.hpp
//! A registered workload: one problem that the samples, the benchmarks and the sweep tool can
//! run under every variant (vanilla, warp persistent threads, the uniform-work floor, microsched
//! with any schedule), time, and check. Workloads are built from the same step code for every
//! variant, so results compare exactly.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "microsched/measure/timing_stats.hpp"
#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched::workloads {

//! A workload option (name=value) with its default and help text, for --help and sweeps.
struct parameter {
  std::string name;
  std::string default_value;
  std::string help;
};

//! Result of checking a scheduled run against the vanilla run of the same step code.
struct check_report {
  bool passed = false;
  std::uint64_t tasks = 0;
  std::uint64_t missing = 0;     //!< tasks never processed
  std::uint64_t duplicated = 0;  //!< tasks processed more than once
  std::uint64_t mismatched = 0;  //!< outputs that differ from vanilla
  std::string detail;            //!< first problems found, for the error message
};

//! Registers, shared and local memory and occupancy of one compiled kernel.
struct resource_report {
  std::string kernel;
  int registers = 0;
  std::size_t static_shared_bytes = 0;
  std::size_t local_bytes = 0;  //!< spills and stack per thread: should be 0
  int blocks_per_sm = 0;        //!< that fit on one SM (occupancy)
  int threads_per_block = 0;
  std::uint64_t grid_blocks = 0;  //!< blocks this run launches
};

using options_map = std::map<std::string, std::string>;

class workload {
 public:
  virtual ~workload() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  //! e.g. "julia 2048x2048 float crunch=4096 offset=0"
  [[nodiscard]] virtual std::string describe() const = 0;
  [[nodiscard]] virtual std::uint64_t num_tasks() const = 0;
  //! Total steps of all tasks (from the vanilla run); the floor runs their mean on every task.
  [[nodiscard]] virtual std::uint64_t total_steps() = 0;

  virtual timing_stats time_vanilla(const timing_options& options) = 0;
  virtual timing_stats time_warp_persistent(const timing_options& options) = 0;
  virtual timing_stats time_floor(const timing_options& options) = 0;
  //! Throws std::invalid_argument (with the reason) when the schedule cannot run here.
  virtual timing_stats time_scheduled(const schedule_arguments& args,
                                      const timing_options& options) = 0;
  //! Poisons the outputs, runs once with per-task counters, compares with vanilla.
  virtual check_report check_scheduled(const schedule_arguments& args) = 0;
  [[nodiscard]] virtual std::vector<resource_report> resources(const schedule_arguments& args) = 0;
  //! What the scheduler runs under `args` and why: the fixed schedule, or what the automatic
  //! schedule chose for this size with every candidate's time (after time_scheduled()).
  [[nodiscard]] virtual std::string schedule_report(const schedule_arguments& args) {
    return to_string(args);
  }
};

//! Names of the registered workloads ("julia", "montecarlo", ...).
[[nodiscard]] std::vector<std::string> workload_names();
//! The options a workload takes, with defaults. Throws std::invalid_argument for an unknown name.
[[nodiscard]] std::vector<parameter> workload_parameters(const std::string& name);
//! Builds a workload on the current device. Unknown names or options, or bad values, throw
//! std::invalid_argument naming them; no GPU throws microsched::no_device_error.
[[nodiscard]] std::unique_ptr<workload> make_workload(const std::string& name,
                                                      const options_map& options);

}  // namespace microsched::workloads
