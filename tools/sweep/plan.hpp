// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file plan.hpp
//! What one sweep runs: a workload, its scenarios (the product of the workload-option axes) and
//! its settings (the product of the schedule axes and the workload's tunable axes), every
//! scenario with every setting. A scenario builds the workload and times its references once;
//! a setting is one point of it.

#include <string>
#include <vector>

#include "microsched/schedule/schedule_text.hpp"
#include "sweep/range.hpp"
#include "workload.hpp"

namespace microsched::sweep {

using workloads::options_map;

//! Points one sweep may have: beyond this a plan is refused before anything is allocated (at a
//! millisecond a point, it is more than a day of GPU time).
inline constexpr std::size_t max_points = 100'000;

//! One point of a scenario: a schedule and the workload's tunables (only the swept ones; the
//! others keep their defaults).
struct point_setting {
  schedule_arguments schedule;
  options_map tunables;
  friend bool operator==(const point_setting&, const point_setting&) = default;
};

struct sweep_plan {
  std::string workload;
  std::vector<axis> schedule_axes;  //!< the swept schedule fields, in schedule_axis_names() order
  std::vector<axis> workload_axes;  //!< workload options, in the order given
  std::vector<axis> tunable_axes;   //!< the workload's tunables, in the order given
  bool takes_schedule = true;       //!< false: the workload ignores the schedule (no axes)

  [[nodiscard]] std::vector<options_map> scenarios() const;
  //! Every combination of the schedule axes as effective_schedule() runs it, each once (in
  //! first-seen order): combinations that differ only in fields their strategy ignores are one.
  [[nodiscard]] std::vector<schedule_arguments> schedules() const;
  //! Every schedule with every combination of the tunables, the last tunable fastest.
  [[nodiscard]] std::vector<point_setting> settings() const;
  //! Points: scenarios times settings.
  [[nodiscard]] std::size_t size() const;
  //! The product of every axis's values: the points before equal schedules are merged.
  [[nodiscard]] double combinations() const;
  //! Names of the workload options that scenarios set, in the order given.
  [[nodiscard]] std::vector<std::string> option_names() const;
  //! Names of the tunables that settings set, in the order given.
  [[nodiscard]] std::vector<std::string> tunable_names() const;
};

//! Builds a plan from "name=values" arguments. Throws std::invalid_argument for a bad range, a
//! name given twice, a name that is neither a schedule axis nor listed in `known` (options) or
//! `tunables` (naming the ones that are), a schedule axis for a workload that takes no schedule
//! (`takes_schedule` false), a schedule axis that no swept strategy reads (chunk with the
//! automatic strategy alone, budget without budgeted, period without warp_range), or more than
//! max_points combinations (naming the count, before anything is allocated).
[[nodiscard]] sweep_plan make_plan(const std::string& workload,
                                   const std::vector<std::string>& axis_arguments,
                                   const std::vector<workloads::parameter>& known,
                                   const std::vector<workloads::parameter>& tunables = {},
                                   bool takes_schedule = true);

//! "julia crunch=4096 offset=0": the workload and the options a scenario sets, sorted by name.
[[nodiscard]] std::string scenario_key(const std::string& workload, const options_map& options);

//! The schedule a strategy runs: the fields it ignores at their defaults (automatic reads only
//! `switching`, budget is the budgeted strategy's, period the warp_range strategy's), so that
//! schedules that run the same have the same key.
[[nodiscard]] schedule_arguments effective_schedule(const schedule_arguments& args);

//! A point's setting as one stable line: the schedule's full text (schedule_text: every field),
//! then the tunables sorted by name ("strategy=hybrid fetch=any chunk=64 ... contexts=64");
//! without the schedule when the workload takes none ("method=dgi neighbouring=16", or
//! "defaults" when nothing is swept). It keys the journal's points: two points share it only
//! when they run the same.
[[nodiscard]] std::string setting_key(const schedule_arguments& schedule,
                                      const options_map& tunables, bool takes_schedule = true);

}  // namespace microsched::sweep
