// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file engine.hpp
//! Runs a sweep plan: for every scenario, builds the workload, times its references once
//! (vanilla, persistent threads, floor), then for every schedule checks exactly-once execution
//! and times it. Every finished point goes to the journal before the next starts.

#include <atomic>
#include <functional>
#include <memory>
#include <stdexcept>

#include "sweep/journal.hpp"
#include "sweep/plan.hpp"
#include "sweep/records.hpp"

namespace microsched::sweep {

//! Where workloads come from: the registry (make_workload) in the sweep program, a test double
//! in the tests. Only `parameters` and `make` are required: without `tunables` a workload has
//! none, without `traits` it has every reference and takes the schedule, and without `check`
//! options are checked by building the workload.
struct workload_factory {
  std::function<std::vector<workloads::parameter>(const std::string& name)> parameters;
  std::function<std::unique_ptr<workloads::workload>(const std::string& name,
                                                     const options_map& options)>
      make;
  std::function<std::vector<workloads::parameter>(const std::string& name)> tunables;
  std::function<workloads::workload_traits(const std::string& name)> traits;
  //! Checks options and tunables on the host; throws std::invalid_argument naming a bad value.
  std::function<void(const std::string& name, const options_map& options)> validate;

  [[nodiscard]] std::vector<workloads::parameter> tunables_of(const std::string& name) const {
    return tunables ? tunables(name) : std::vector<workloads::parameter>{};
  }
  [[nodiscard]] workloads::workload_traits traits_of(const std::string& name) const {
    return traits ? traits(name) : workloads::workload_traits{};
  }
};

//! The plan for `workload` from "name=values" arguments, with the factory's options, tunables
//! and traits (make_plan).
[[nodiscard]] sweep_plan plan_for(const std::string& workload,
                                  const std::vector<std::string>& axis_arguments,
                                  const workload_factory& factory);

//! The registered workloads of the library (workload_parameters, make_workload).
[[nodiscard]] workload_factory registry_factory();

//! A point failed its exactly-once check: the sweep stopped there, nothing was timed for it.
class verification_failed_error : public std::runtime_error {
 public:
  verification_failed_error(const std::string& message, point_record record)
      : std::runtime_error(message), record_(std::move(record)) {}
  [[nodiscard]] const point_record& record() const { return record_; }

 private:
  point_record record_;
};

struct scenario_results {
  baseline_record baseline;
  std::vector<point_record> points;  //!< the plan's schedules that are finished, in plan order
};

struct sweep_results {
  sweep_header header;
  std::vector<std::string> option_names;   //!< workload options that scenarios set
  std::vector<std::string> tunable_names;  //!< workload tunables that points set
  bool takes_schedule = true;              //!< false: points differ by their tunables only
  std::vector<scenario_results> scenarios;
};

//! Progress of a running sweep, for the progress bar.
struct progress_event {
  std::size_t done = 0;  //!< points finished, including those found in the journal
  std::size_t total = 0;
  std::size_t resumed = 0;  //!< of `done`, found in the journal (cost no time now)
  std::string label;        //!< what runs next (or ran last)
};

struct run_options {
  timing_options timing;
  std::function<void(const progress_event&)> on_progress;  //!< may be empty
  const std::atomic<bool>* stop = nullptr;  //!< set (e.g. by SIGINT): stop between points
};

//! "persistent threads: termination-only driver; floor: n/a (why)": how this workload's references
//! read where they differ from the termination workloads' (empty when they do not).
[[nodiscard]] std::string reference_note(const workloads::workload_traits& traits);

//! Runs what the journal does not hold yet. Returns true when every point is finished, false
//! when stopped early through run_options::stop. Throws verification_failed_error (after journaling
//! the failed point), std::invalid_argument for a bad workload option (naming it), or whatever the
//! workload throws for an error that is not a configuration that cannot run.
bool run_sweep(const sweep_plan& plan, const workload_factory& factory, journal& log,
               const run_options& options);

//! The plan's finished points as found in the journal, scenario by scenario in plan order.
//! Scenarios without a baseline are left out.
[[nodiscard]] sweep_results collect_results(const sweep_plan& plan, const journal& log);

}  // namespace microsched::sweep
