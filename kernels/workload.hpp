// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file workload.hpp
//! A registered workload: one problem that the samples, the benchmarks and the sweep tool can
//! run under every variant (vanilla, warp persistent threads, the uniform-work floor, microsched
//! with any schedule), time, and check. Workloads are built from the same step code for every
//! variant, so results compare exactly.
//!
//! Every area registers here: termination (julia, montecarlo, collatz, walk), task-context
//! switching (montecarlo-branch, raycast), in-kernel remap (micro-branch, chi-square, model-tree)
//! and the CPU-GPU pipeline (gafort, unwrap, blackscholes, carried). An area's own settings that
//! change from one run to the next without rebuilding the workload (contexts per warp, the remap
//! method, the pipeline depth, ...) are its *tunables* (set_tunables); what the workload is built
//! from (sizes, probabilities, ...) are its options. Not every area has every reference:
//! traits() says which it has, and the time_* function of one it lacks throws.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
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
struct verification_report {
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
  std::uint64_t grid_blocks = 0;         //!< blocks this run launches
  std::size_t dynamic_shared_bytes = 0;  //!< per block, at launch
};

using options_map = std::map<std::string, std::string>;

//! The references a workload is compared with, by the names its area gives them. An empty name:
//! the workload has no such reference (`missing` says why) and its time_* function throws
//! std::invalid_argument; reports write "n/a", never a number.
struct baseline_names {
  std::string vanilla = "vanilla";                //!< one thread (or the original loop) per task
  std::string persistent = "persistent threads";  //!< a persistent driver without the area's idea
  std::string floor = "floor";  //!< the same work without divergence (or an ideal derived from it)
  std::string missing;          //!< why the absent ones are absent ("" when none is)
};

//! What a workload offers, known without building it (workload_traits()).
struct workload_traits {
  std::string area = "termination";  //!< termination, switching, remap or pipeline
  //! The workload runs under microsched's scheduler, so the schedule (strategy, fetch, chunk,
  //! deferral, blocks per SM) applies. false: time_scheduled and verify_scheduled ignore it.
  bool takes_schedule = true;
  baseline_names baselines;
};

class workload {
 public:
  virtual ~workload() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  //! e.g. "julia 2048x2048 float crunch=4096 offset=0"
  [[nodiscard]] virtual std::string describe() const = 0;
  [[nodiscard]] virtual std::uint64_t num_tasks() const = 0;
  //! Total steps of all tasks (from the vanilla run); the floor runs their mean on every task.
  //! 0 where the workload does not count steps (switching, remap and pipeline workloads).
  [[nodiscard]] virtual std::uint64_t total_steps() = 0;
  //! Which references this workload has, and whether the schedule applies to it.
  [[nodiscard]] virtual workload_traits traits() const { return {}; }
  //! Sets the tunables (workload_tunables()) for the runs that follow; a tunable not in `values`
  //! takes its default. Throws std::invalid_argument naming the value for a bad value or for a
  //! combination this workload was not compiled for (the sweep records that point as skipped).
  //! Workloads without tunables accept only an empty map.
  virtual void set_tunables(const options_map& values) {
    if (values.empty()) return;
    throw std::invalid_argument(name() + ": takes no tunable '" + values.begin()->first +
                                "' (its options are set when it is built)");
  }

  virtual timing_stats time_vanilla(const timing_options& options) = 0;
  virtual timing_stats time_warp_persistent(const timing_options& options) = 0;
  virtual timing_stats time_floor(const timing_options& options) = 0;
  //! The task with the most steps alone in one thread: a time no schedule that runs each task in
  //! one thread beats. Zero where the workload does not measure it.
  virtual timing_stats time_longest_task_alone(const timing_options& /*options*/) { return {}; }
  //! Throws std::invalid_argument (with the reason) when the schedule cannot run here.
  virtual timing_stats time_scheduled(const schedule_arguments& args,
                                      const timing_options& options) = 0;
  //! Poisons the outputs, runs once with per-task counters, compares with vanilla.
  virtual verification_report verify_scheduled(const schedule_arguments& args) = 0;
  [[nodiscard]] virtual std::vector<resource_report> resources(const schedule_arguments& args) = 0;
  //! What the scheduler runs under `args` and why: the fixed schedule, or what the automatic
  //! schedule chose for this size with every candidate's time (after time_scheduled()).
  [[nodiscard]] virtual std::string schedule_report(const schedule_arguments& args) {
    return to_string(args);
  }
};

//! Names of the registered workloads ("julia", "montecarlo", ...), of every area built.
[[nodiscard]] std::vector<std::string> workload_names();
//! The options a workload is built from, with defaults. Throws std::invalid_argument for an
//! unknown name.
[[nodiscard]] std::vector<parameter> workload_parameters(const std::string& name);
//! The tunables a workload takes per run (set_tunables), with defaults; empty for the
//! termination workloads. Throws std::invalid_argument for an unknown name.
[[nodiscard]] std::vector<parameter> workload_tunables(const std::string& name);
//! The workload's traits without building it. Throws std::invalid_argument for an unknown name.
[[nodiscard]] workload_traits traits_of(const std::string& name);
//! Checks options and tunables (any mix of both) on the host, without a GPU: throws
//! std::invalid_argument naming the first unknown name or bad value.
void validate_workload_options(const std::string& name, const options_map& options);
//! Builds a workload on the current device. `options` may hold tunables too (their first
//! values). Unknown names or options, or bad values, throw std::invalid_argument naming them
//! before any device work; no GPU throws microsched::no_device_error.
[[nodiscard]] std::unique_ptr<workload> make_workload(const std::string& name,
                                                      const options_map& options);

}  // namespace microsched::workloads
