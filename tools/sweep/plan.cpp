// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "sweep/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

namespace microsched::sweep {

namespace {
//! Odometer over axes: calls visit(indices) for every combination, last axis fastest.
template <class Visit>
void for_each_combination(const std::vector<axis>& axes, Visit&& visit) {
  std::vector<std::size_t> index(axes.size(), 0);
  while (true) {
    visit(index);
    std::size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++index[a] < axes[a].values.size()) break;
      index[a] = 0;
      if (a == 0) return;
    }
    if (axes.empty()) return;
  }
}
}  // namespace

std::vector<options_map> sweep_plan::scenarios() const {
  std::vector<options_map> out;
  for_each_combination(workload_axes, [&](const std::vector<std::size_t>& index) {
    options_map options;
    for (std::size_t a = 0; a < workload_axes.size(); ++a) {
      options[workload_axes[a].name] = workload_axes[a].values[index[a]];
    }
    out.push_back(std::move(options));
  });
  return out;
}

std::vector<schedule_arguments> sweep_plan::schedules() const {
  std::vector<schedule_arguments> out;
  std::set<std::string> seen;
  for_each_combination(schedule_axes, [&](const std::vector<std::size_t>& index) {
    schedule_arguments args;
    for (std::size_t a = 0; a < schedule_axes.size(); ++a) {
      apply_schedule_value(args, schedule_axes[a].name, schedule_axes[a].values[index[a]]);
    }
    validate(args);
    args = effective_schedule(args);
    if (seen.insert(schedule_text(args)).second) out.push_back(args);
  });
  return out;
}

std::vector<point_setting> sweep_plan::settings() const {
  std::vector<options_map> tunable_sets;
  for_each_combination(tunable_axes, [&](const std::vector<std::size_t>& index) {
    options_map values;
    for (std::size_t a = 0; a < tunable_axes.size(); ++a) {
      values[tunable_axes[a].name] = tunable_axes[a].values[index[a]];
    }
    tunable_sets.push_back(std::move(values));
  });
  std::vector<point_setting> out;
  for (const auto& schedule : schedules()) {
    for (const auto& values : tunable_sets) out.push_back({schedule, values});
  }
  return out;
}

std::size_t sweep_plan::size() const {
  std::size_t n = settings().size();
  for (const auto& a : workload_axes) n *= a.values.size();
  return n;
}

double sweep_plan::combinations() const {
  double n = 1;
  for (const auto* axes : {&schedule_axes, &workload_axes, &tunable_axes}) {
    for (const auto& a : *axes) n *= static_cast<double>(a.values.size());
  }
  return n;
}

std::vector<std::string> sweep_plan::tunable_names() const {
  std::vector<std::string> names;
  for (const auto& a : tunable_axes) names.push_back(a.name);
  return names;
}

std::vector<std::string> sweep_plan::option_names() const {
  std::vector<std::string> names;
  for (const auto& a : workload_axes) names.push_back(a.name);
  return names;
}

namespace {
//! The strategies a plan runs: the strategy axis's, or the default's.
std::vector<pool_strategy> strategies_of(const std::vector<axis>& schedule_axes) {
  for (const auto& a : schedule_axes) {
    if (a.name != "strategy") continue;
    std::vector<pool_strategy> out;
    for (const auto& v : a.values) out.push_back(parse_pool_strategy(v));
    return out;
  }
  return {schedule_arguments{}.strategy};
}

//! Whether `strategy` runs with the schedule field of axis `name` (effective_schedule's rules).
bool reads(pool_strategy strategy, const std::string& name) {
  if (strategy == pool_strategy::automatic) return false;
  if (name == "budget") return strategy == pool_strategy::budgeted;
  if (name == "period") return strategy == pool_strategy::warp_range;
  return true;
}

//! Refuses a swept schedule field that no swept strategy reads: its points would all time the
//! same schedule under different labels.
void validate_axes_are_read(const std::vector<axis>& schedule_axes) {
  const auto strategies = strategies_of(schedule_axes);
  for (const auto& a : schedule_axes) {
    if (a.name == "strategy") continue;
    bool read = false;
    for (const auto s : strategies) read = read || reads(s, a.name);
    if (read) continue;
    std::string names;
    for (const auto s : strategies) names += (names.empty() ? "" : ",") + to_string(s);
    const std::string example = a.name == "budget"   ? "budgeted"
                                : a.name == "period" ? "warp_range"
                                                     : "hybrid";
    const bool automatic = names == to_string(pool_strategy::automatic);
    throw std::invalid_argument(
        "'" + a.name + "' is swept, but strategy " + names + " does not read it" +
        (automatic ? " (automatic chooses the whole schedule itself)" : "") +
        ", so every value would time the same schedule; sweep a strategy that reads it too, "
        "e.g. strategy=" +
        example);
  }
}

bool lists(const std::vector<workloads::parameter>& known, const std::string& name) {
  return std::any_of(known.begin(), known.end(),
                     [&](const workloads::parameter& p) { return p.name == name; });
}
}  // namespace

sweep_plan make_plan(const std::string& workload, const std::vector<std::string>& axis_arguments,
                     const std::vector<workloads::parameter>& known,
                     const std::vector<workloads::parameter>& tunables, bool takes_schedule) {
  sweep_plan plan;
  plan.workload = workload;
  plan.takes_schedule = takes_schedule;
  std::vector<axis> schedule;
  for (const auto& text : axis_arguments) {
    axis a = parse_axis(text);
    const auto same_name = [&](const axis& other) { return other.name == a.name; };
    if (std::any_of(schedule.begin(), schedule.end(), same_name) ||
        std::any_of(plan.workload_axes.begin(), plan.workload_axes.end(), same_name) ||
        std::any_of(plan.tunable_axes.begin(), plan.tunable_axes.end(), same_name)) {
      throw std::invalid_argument("'" + a.name + "' is given twice; put all its values in one " +
                                  a.name + "=... list");
    }
    // A workload's own name wins over a schedule axis of the same spelling: it is what the
    // workload means by it.
    if (lists(tunables, a.name)) {
      plan.tunable_axes.push_back(std::move(a));
      continue;
    }
    if (lists(known, a.name)) {
      plan.workload_axes.push_back(std::move(a));
      continue;
    }
    if (is_schedule_axis(a.name) && takes_schedule) {
      schedule.push_back(std::move(a));
      continue;
    }
    std::string names;
    if (takes_schedule) {
      for (const auto& n : schedule_axis_names()) names += " " + n;
    }
    for (const auto& p : tunables) names += " " + p.name;
    for (const auto& p : known) names += " " + p.name;
    if (is_schedule_axis(a.name)) {
      throw std::invalid_argument("'" + a.name + "': workload " + workload +
                                  " runs without microsched's scheduler, so the schedule does not "
                                  "apply; its parameters are:" +
                                  names);
    }
    throw std::invalid_argument(
        "'" + a.name + "' is neither " + (takes_schedule ? "a schedule parameter nor " : "") +
        "a tunable or an option of workload " + workload + "; the parameters are:" + names);
  }
  for (const auto& name : schedule_axis_names()) {
    for (auto& a : schedule) {
      if (a.name == name) plan.schedule_axes.push_back(std::move(a));
    }
  }
  validate_axes_are_read(plan.schedule_axes);
  if (const double n = plan.combinations(); n > static_cast<double>(max_points)) {
    char count[64];
    std::snprintf(count, sizeof count, "%.0f", n);
    std::string product;
    for (const auto* axes : {&plan.schedule_axes, &plan.workload_axes, &plan.tunable_axes}) {
      for (const auto& a : *axes) {
        product += (product.empty() ? "" : " x ") + std::to_string(a.values.size()) + " " + a.name;
      }
    }
    throw std::invalid_argument("the sweep has " + std::string(count) + " points (" + product +
                                "), over the limit of " + std::to_string(max_points) +
                                "; narrow the ranges or split the sweep");
  }
  return plan;
}

std::string scenario_key(const std::string& workload, const options_map& options) {
  std::string key = workload;
  for (const auto& [name, value] : options) key += " " + name + "=" + value;
  return key;
}

schedule_arguments effective_schedule(const schedule_arguments& args) {
  if (args.strategy == pool_strategy::automatic) {
    schedule_arguments automatic;
    automatic.switching = args.switching;
    return automatic;
  }
  schedule_arguments out = args;
  if (out.strategy != pool_strategy::budgeted) out.budget = 0;
  if (out.strategy != pool_strategy::warp_range) out.period = 0;
  return out;
}

std::string setting_key(const schedule_arguments& schedule, const options_map& tunables,
                        bool takes_schedule) {
  std::string key = takes_schedule ? schedule_text(schedule) : "";
  for (const auto& [name, value] : tunables) key += (key.empty() ? "" : " ") + name + "=" + value;
  return key.empty() ? "defaults" : key;
}

}  // namespace microsched::sweep
