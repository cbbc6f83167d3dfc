#include "sweep/engine.hpp"

namespace microsched::sweep {

namespace {

std::string label_of(const std::string& scenario, const schedule_arguments& args) {
  return scenario + ": " + schedule_key(args);
}

baseline_record time_baseline(workloads::workload& w, const std::string& key,
                              const options_map& options, const timing_options& timing) {
  baseline_record b;
  b.scenario = key;
  b.options = options;
  b.describe = w.describe();
  b.tasks = w.num_tasks();
  b.total_steps = w.total_steps();
  b.vanilla = w.time_vanilla(timing);
  b.persistent = w.time_warp_persistent(timing);
  b.floor = w.time_floor(timing);
  return b;
}

//! Checks, then times one point. Configurations that cannot run come back as skipped.
point_record run_point(workloads::workload& w, const std::string& key,
                       const schedule_arguments& args, const timing_options& timing) {
  point_record p;
  p.scenario = key;
  p.schedule = args;
  try {
    const workloads::check_report check = w.check_scheduled(args);
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

std::string check_failure_message(const point_record& p) {
  return "exactly-once check failed for " + label_of(p.scenario, p.schedule) + ": " +
         std::to_string(p.missing) + " missing, " + std::to_string(p.duplicated) + " duplicated, " +
         std::to_string(p.mismatched) + " mismatched of " + std::to_string(p.check_tasks) +
         " tasks" + (p.reason.empty() ? "" : " (" + p.reason + ")") +
         ". The sweep stopped here and did not time this point; the finished points are kept";
}

}  // namespace

bool run_sweep(const sweep_plan& plan, const workload_factory& factory, journal& log,
               const run_options& options) {
  const auto scenarios = plan.scenarios();
  const auto schedules = plan.schedules();
  progress_event progress;
  progress.total = scenarios.size() * schedules.size();
  for (const auto& options_of : scenarios) {
    const auto key = scenario_key(plan.workload, options_of);
    for (const auto& s : schedules) progress.resumed += log.find_point(key, s) != nullptr;
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
    for (const auto& s : schedules) all_done = all_done && log.find_point(key, s) != nullptr;
    if (all_done) continue;
    if (stopped()) return false;

    report(key + ": building the workload and timing vanilla, persistent threads, floor");
    std::unique_ptr<workloads::workload> w;
    try {
      w = factory.make(plan.workload, options_of);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("scenario '" + key + "': " + e.what());
    }
    if (log.find_baseline(key) == nullptr) {
      log.append(time_baseline(*w, key, options_of, options.timing));
    }
    for (const auto& s : schedules) {
      if (log.find_point(key, s) != nullptr) continue;
      if (stopped()) return false;
      report(label_of(key, s));
      point_record p = run_point(*w, key, s, options.timing);
      log.append(p);
      if (p.status == point_status::check_failed) {
        throw check_failed_error(check_failure_message(p), p);
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
  const auto schedules = plan.schedules();
  for (const auto& options_of : plan.scenarios()) {
    const auto key = scenario_key(plan.workload, options_of);
    const baseline_record* b = log.find_baseline(key);
    if (b == nullptr) continue;
    scenario_results s;
    s.baseline = *b;
    for (const auto& args : schedules) {
      if (const point_record* p = log.find_point(key, args)) s.points.push_back(*p);
    }
    results.scenarios.push_back(std::move(s));
  }
  return results;
}

}  // namespace microsched::sweep
