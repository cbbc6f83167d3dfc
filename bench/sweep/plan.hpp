#pragma once
//! @file plan.hpp
//! What one sweep runs: a workload, its scenarios (the product of the workload-option axes) and
//! the schedules (the product of the schedule axes), every scenario with every schedule.

#include <string>
#include <vector>

#include "sweep/range.hpp"
#include "workload.hpp"

namespace microsched::sweep {

using workloads::options_map;

struct sweep_plan {
  std::string workload;
  std::vector<axis> schedule_axes;  //!< the swept schedule fields, in schedule_axis_names() order
  std::vector<axis> workload_axes;  //!< workload options, in the order given

  [[nodiscard]] std::vector<options_map> scenarios() const;
  [[nodiscard]] std::vector<schedule_arguments> schedules() const;
  [[nodiscard]] std::size_t size() const;
  //! Names of the workload options that scenarios set, in the order given.
  [[nodiscard]] std::vector<std::string> option_names() const;
};

//! Builds a plan from "name=values" arguments. Throws std::invalid_argument for a bad range, a
//! name given twice, or a workload option that `known` does not list (naming the ones it does).
[[nodiscard]] sweep_plan make_plan(const std::string& workload,
                                   const std::vector<std::string>& axis_arguments,
                                   const std::vector<workloads::parameter>& known);

//! "julia crunch=4096 offset=0": the workload and the options a scenario sets, sorted by name.
[[nodiscard]] std::string scenario_key(const std::string& workload, const options_map& options);

//! Schedule as one stable line: "hybrid any chunk=64 deferral=8 blocks/SM=auto".
[[nodiscard]] std::string schedule_key(const schedule_arguments& args);

}  // namespace microsched::sweep
