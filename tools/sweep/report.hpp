// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file report.hpp
//! What a sweep found: the best setting of every scenario and its distance from the floor, the
//! best constant setting across scenarios and what it loses in each (frey2012 Fig. 7, bottom),
//! and the CSV and JSON files with every point.

#include <optional>
#include <string>
#include <vector>

#include "sweep/engine.hpp"

namespace microsched::sweep {

//! Ratios of one timed point against its scenario's references (all from medians); 0 where the
//! point did not run or the workload has no such reference (written as n/a).
struct point_ratios {
  double speedup_vs_vanilla = 0;     //!< vanilla / point: above 1 is faster than vanilla
  double speedup_vs_persistent = 0;  //!< persistent threads / point
  double over_floor = 0;             //!< point / floor: 1 is the limit, 1.25 is 25% above it
  double noise = 0;                  //!< (max - min) / median of the point's repetitions
};

[[nodiscard]] point_ratios ratios(const point_record& point, const baseline_record& baseline);

//! Index of the fastest ok point (smallest median), if any point ran.
[[nodiscard]] std::optional<std::size_t> best_point(const scenario_results& scenario);

//! The one setting that is best across all scenarios: the setting (schedule and tunables), among
//! those that ran in every scenario, with the smallest geometric mean of (its time / the
//! scenario's best time); ties go to the smaller worst loss.
struct constant_setting {
  schedule_arguments schedule;
  options_map tunables;
  std::vector<double> scenario_best_ms;  //!< per scenario, its own best median
  std::vector<double> constant_ms;       //!< per scenario, the constant setting's median
  std::vector<double> loss;              //!< per scenario, constant / best - 1 (0.03 = 3% slower)
  double mean_loss = 0;                  //!< geometric mean of (1 + loss), minus 1
  double worst_loss = 0;
};

//! nullopt when no schedule ran in every scenario (or there are no scenarios).
[[nodiscard]] std::optional<constant_setting> best_constant(const sweep_results& results);

//! One row per point, with the scenario's options as columns. Fields with commas or quotes are
//! quoted (RFC 4180); numbers are written so that they read back exactly.
[[nodiscard]] std::string to_csv(const sweep_results& results);
//! Reads CSV text back into rows of fields (RFC 4180 quoting). Throws std::invalid_argument.
[[nodiscard]] std::vector<std::vector<std::string>> parse_csv(const std::string& text);
[[nodiscard]] const std::vector<std::string>& csv_fixed_columns();

//! Every scenario with its references, every point with its ratios, the best point per scenario
//! and the best constant setting.
[[nodiscard]] std::string to_json_text(const sweep_results& results);
//! Reads sweep.json back (headers, baselines and points; derived fields are recomputed).
[[nodiscard]] sweep_results results_from_json_text(const std::string& text);

//! The summary the program prints: per scenario its references, best setting and distance from
//! the floor, skipped points, then the best constant setting and its loss per scenario.
[[nodiscard]] std::string summary_text(const sweep_results& results);

//! A point's setting as the summary prints it (setting_key, without the schedule when the
//! workload takes none).
[[nodiscard]] std::string setting_label(const sweep_results& results, const point_record& point);

//! "1.23 ms" / "456 us": a time with three significant digits.
[[nodiscard]] std::string format_ms(double ms);

}  // namespace microsched::sweep
