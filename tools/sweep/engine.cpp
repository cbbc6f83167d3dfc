// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "sweep/engine.hpp"

namespace microsched::sweep {

namespace {

std::string label_of(const std::string& scenario, const point_setting& s) {
  return scenario + ": " + setting_key(s.schedule, s.tunables);
}

//! The references the workload has; one it lacks stays untimed (n/a in every output). The
//! tunables are the defaults while they run.
baseline_record time_baseline(workloads::workload& w, const std::string& key,
                              const options_map& options, const timing_options& timing) {
  const workloads::workload_traits traits = w.traits();
  w.set_tunables({});
  baseline_record b;
  b.scenario = key;
  b.options = options;
  b.describe = w.describe();
  b.tasks = w.num_tasks();
  b.total_steps = w.total_steps();
  b.references = reference_note(traits);
  if (!traits.baselines.vanilla.empty()) b.vanilla = w.time_vanilla(timing);
  if (!traits.baselines.persistent.empty()) b.persistent = w.time_warp_persistent(timing);
  if (!traits.baselines.floor.empty()) b.floor = w.time_floor(timing);
  return b;
}

//! Sets the tunables, checks, then times one point. Configurations that cannot run (a schedule
//! that does not fit, tunables the workload was not compiled for) come back as skipped.
point_record run_point(workloads::workload& w, const std::string& key, const point_setting& s,
                       const timing_options& timing) {
  point_record p;
  p.scenario = key;
  p.schedule = s.schedule;
  p.tunables = s.tunables;
  const schedule_arguments& args = s.schedule;
  try {
    w.set_tunables(s.tunables);
    const workloads::verification_report check = w.verify_scheduled(args);
    p.check_passed = check.passed;
    p.check_tasks = check.tasks;
    p.missing = check.missing;
    p.duplicated = check.duplicated;
    p.mismatched = check.mismatched;
    if (!check.passed) {
      p.status = point_status::check_failed;
      p.reason = check.detail;
      return p;
    }
    p.time = w.time_scheduled(args, timing);
    p.status = point_status::ok;
  } catch (const std::invalid_argument& e) {
    p.status = point_status::skipped;
    p.reason = e.what();
    p.time = {};
  }
  return p;
}

std::string verification_failure_message(const point_record& p) {
  return "exactly-once check failed for " + label_of(p.scenario, {p.schedule, p.tunables}) + ": " +
         std::to_string(p.missing) + " missing, " + std::to_string(p.duplicated) + " duplicated, " +
         std::to_string(p.mismatched) + " mismatched of " + std::to_string(p.check_tasks) +
         " tasks" + (p.reason.empty() ? "" : " (" + p.reason + ")") +
         ". The sweep stopped here and did not time this point; the finished points are kept";
}

}  // namespace

std::string reference_note(const workloads::workload_traits& traits) {
  const workloads::baseline_names defaults;
  const workloads::baseline_names& names = traits.baselines;
  std::string note;
  const auto add = [&](const std::string& reference, const std::string& name,
                       const std::string& usual) {
    if (name == usual) return;
    note += (note.empty() ? "" : "; ") + reference + ": " + (name.empty() ? "n/a" : name);
  };
  add("vanilla", names.vanilla, defaults.vanilla);
  add("persistent threads", names.persistent, defaults.persistent);
  add("floor", names.floor, defaults.floor);
  if (!names.missing.empty()) note += " (" + names.missing + ")";
  return note;
}

sweep_plan plan_for(const std::string& workload, const std::vector<std::string>& axis_arguments,
                    const workload_factory& factory) {
  return make_plan(workload, axis_arguments, factory.parameters(workload),
                   factory.tunables_of(workload), factory.traits_of(workload).takes_schedule);
}

bool run_sweep(const sweep_plan& plan, const workload_factory& factory, journal& log,
               const run_options& options) {
  const auto scenarios = plan.scenarios();
  const auto settings = plan.settings();
  progress_event progress;
  progress.total = scenarios.size() * settings.size();
  const auto find = [&](const std::string& key, const point_setting& s) {
    return log.find_point(key, s.schedule, s.tunables);
  };
  for (const auto& options_of : scenarios) {
    const auto key = scenario_key(plan.workload, options_of);
    for (const auto& s : settings) progress.resumed += find(key, s) != nullptr;
  }
  progress.done = progress.resumed;
  const auto report = [&](const std::string& label) {
    if (options.on_progress) {
      progress.label = label;
      options.on_progress(progress);
    }
  };
  const auto stopped = [&] { return options.stop != nullptr && options.stop->load(); };

  for (const auto& options_of : scenarios) {
    const auto key = scenario_key(plan.workload, options_of);
    bool all_done = log.find_baseline(key) != nullptr;
    for (const auto& s : settings) all_done = all_done && find(key, s) != nullptr;
    if (all_done) continue;
    if (stopped()) return false;

    report(key + ": building the workload and timing its references");
    std::unique_ptr<workloads::workload> w;
    try {
      w = factory.make(plan.workload, options_of);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("scenario '" + key + "': " + e.what());
    }
    if (log.find_baseline(key) == nullptr) {
      log.append(time_baseline(*w, key, options_of, options.timing));
    }
    for (const auto& s : settings) {
      if (find(key, s) != nullptr) continue;
      if (stopped()) return false;
      report(label_of(key, s));
      point_record p = run_point(*w, key, s, options.timing);
      log.append(p);
      if (p.status == point_status::check_failed) {
        throw verification_failed_error(verification_failure_message(p), p);
      }
      ++progress.done;
      report(label_of(key, s));
    }
  }
  return true;
}

sweep_results collect_results(const sweep_plan& plan, const journal& log) {
  sweep_results results;
  results.header = log.header();
  results.option_names = plan.option_names();
  results.tunable_names = plan.tunable_names();
  results.takes_schedule = plan.takes_schedule;
  const auto settings = plan.settings();
  for (const auto& options_of : plan.scenarios()) {
    const auto key = scenario_key(plan.workload, options_of);
    const baseline_record* b = log.find_baseline(key);
    if (b == nullptr) continue;
    scenario_results s;
    s.baseline = *b;
    for (const auto& setting : settings) {
      if (const point_record* p = log.find_point(key, setting.schedule, setting.tunables)) {
        s.points.push_back(*p);
      }
    }
    results.scenarios.push_back(std::move(s));
  }
  return results;
}

}  // namespace microsched::sweep
