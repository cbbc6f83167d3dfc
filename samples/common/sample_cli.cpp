// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "sample_cli.hpp"

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "microsched/check/prize_report.hpp"
#include "microsched/device.hpp"
#include "microsched/error.hpp"
#include "output_path.hpp"
#if MICROSCHED_HAVE_TUNING
#include "microsched/sweep/tuning_file.hpp"
#endif

namespace microsched::samples {

void add_strategy_option(CLI::App& app, std::string& strategy) {
  app.add_option("--strategy", strategy,
                 "automatic (times the direct mapping and the task pools on the first runs and "
                 "keeps the fastest), direct (one thread per task; strided: the same in a "
                 "grid-stride loop), or the task pools of "
                 "frey2012 4.2: local, private_pools, hybrid; for plain task programs also "
                 "warp_range (runs of tasks per lane, the next begun within the deferral; lanes "
                 "refill every --period steps) and budgeted (a direct pass of --budget steps per "
                 "task, then the tasks still running on private pools)")
      ->capture_default_str();
}

void add_repetitions_option(CLI::App& app, int& repetitions) {
  programs::add_checked(app, "--repetitions", repetitions,
                        "timed runs per kernel (median reported)", 1, 10000);
}

void validate_repetitions(int repetitions) {
  if (repetitions < 1) throw_invalid("repetitions", repetitions, "must be at least 1");
}

void schedule_cli::add_to(CLI::App& app) {
  add_strategy_option(app, strategy);
  app.add_option("--fetch", fetch,
                 "when a warp refills: any, all or ballot:N, N idle lanes in 1..32 "
                 "(default " +
                     to_string(schedule_arguments{}.fetch) + ")");
  programs::add_checked(app, "--chunk", chunk,
                        "tasks per grab from the pool above (Local: per block)", std::uint64_t{1},
                        std::uint64_t{1} << 30);
  programs::add_checked(app, "--deferral", deferral,
                        "steps between two fetch checks (0: the policy's default)", 0, 1 << 20);
  programs::add_checked(app, "--blocks-per-sm", blocks_per_sm,
                        "resident blocks per SM; 0 = automatic: from occupancy, at most 1024 "
                        "threads per SM",
                        0, 32);
  programs::add_checked(app, "--budget", budget,
                        "budgeted: steps each task runs in the direct pass before the survivors "
                        "move to persistent warps (0: " +
                            std::to_string(default_budget) + ")",
                        0, 1 << 20);
  programs::add_checked(app, "--period", period,
                        "warp_range: steps a lane runs between two refills, 4 or 8 (0: " +
                            std::to_string(default_warp_range_period) +
                            "); cheap steps want 8, costly ones 4",
                        0, 8);
  add_repetitions_option(app, repetitions);
#if MICROSCHED_HAVE_TUNING
  app.add_option("--tuned", tuned,
                 "use the tuned schedule for this GPU from a tuning file written by "
                 "'sweep --save-tuning' (replaces the schedule options)");
#endif
}

schedule_arguments schedule_cli::arguments(const std::string& workload) const {
  validate_repetitions(repetitions);
#if MICROSCHED_HAVE_TUNING
  if (!tuned.empty()) {
    // The file is read and checked first: a missing or corrupt one is bad input (exit 2) even
    // where there is no GPU; only then is the GPU asked for its name.
    if (!std::filesystem::exists(tuned)) {
      throw std::invalid_argument("--tuned = '" + tuned +
                                  "': no such file (write one with 'sweep --save-tuning')");
    }
    if (!std::filesystem::is_regular_file(tuned)) {
      throw std::invalid_argument("--tuned = '" + tuned + "': not a file");
    }
    sweep::tuning_table table;
    try {
      table = sweep::tuning_table::load(tuned);
    } catch (const std::exception& e) {
      throw std::invalid_argument("--tuned = '" + tuned + "': " + e.what());
    }
    const auto found = table.find(current_device().name, workload);
    if (!found) {
      throw std::invalid_argument("--tuned = '" + tuned + "': no schedule for workload '" +
                                  workload + "' on " + current_device().name + " in that file");
    }
    try {
      validate(found->schedule);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--tuned = '" + tuned + "': " + e.what());
    }
    std::printf("tuned schedule from %s: %s\n", tuned.c_str(), to_string(found->schedule).c_str());
    return found->schedule;
  }
#else
  (void)workload;
#endif
  schedule_arguments args;
  args.strategy = parse_pool_strategy(strategy);
  if (!fetch.empty()) args.fetch = parse_fetch_control(fetch);
  args.chunk = chunk;
  args.deferral = deferral;
  args.blocks_per_sm = blocks_per_sm;
  args.budget = budget;
  args.period = period;
  validate(args);
  return args;
}

void add_workload_options(CLI::App& app, const std::vector<workloads::parameter>& parameters,
                          workloads::options_map& options) {
  for (const auto& p : parameters) {
    options[p.name] = p.default_value;
    app.add_option("--" + p.name, options[p.name], p.help)->capture_default_str();
  }
}

void png_output::add_to(CLI::App& app) {
  app.add_option("-o,--output", path, "PNG to write (empty: none)")->capture_default_str();
}

void png_output::check() const {
  if (wanted()) programs::validate_output_file("--output", path);
}

void png_output::write(const rgb_image& image) const {
  write_png(path, image);
  std::printf("wrote %s\n", path.c_str());
}

void print_device() {
  std::printf("device: %s\n", describe(current_device()).c_str());
}

void print_time(const std::string& name, const timing_stats& t, double vanilla_ms, int name_width) {
  std::printf("  %-*s %10.3f ms  (min %.3f, max %.3f)  %6.2fx vanilla\n", name_width, name.c_str(),
              t.median_ms, t.min_ms, t.max_ms, vanilla_ms / t.median_ms);
}

namespace {

void print_comparison(workloads::workload& w, const schedule_arguments& args, int repetitions) {
  constexpr int name_width = 22;  // "uniform-work floor"
  const timing_options options{2, repetitions};
  std::fprintf(stderr, "timing %s (%d repetitions each)...\n", w.describe().c_str(), repetitions);
  const timing_stats vanilla = w.time_vanilla(options);
  const timing_stats persistent = w.time_warp_persistent(options);
  const timing_stats scheduled = w.time_scheduled(args, options);
  const timing_stats floor = w.time_floor(options);
  const timing_stats longest = w.time_longest_task_alone(options);
  std::printf("%s, %llu tasks, %.1f steps per task on average\n", w.describe().c_str(),
              static_cast<unsigned long long>(w.num_tasks()),
              static_cast<double>(w.total_steps()) / static_cast<double>(w.num_tasks()));
  print_time("vanilla", vanilla, vanilla.median_ms, name_width);
  print_time("warp persistent", persistent, vanilla.median_ms, name_width);
  print_time("microsched", scheduled, vanilla.median_ms, name_width);
  print_time("uniform-work floor", floor, vanilla.median_ms, name_width);
  std::printf(
      "  microsched: %s; %.2fx vanilla, %.2fx warp persistent, at %.0f%% of the floor's speed\n",
      w.schedule_report(args).c_str(), vanilla.median_ms / scheduled.median_ms,
      persistent.median_ms / scheduled.median_ms, 100.0 * floor.median_ms / scheduled.median_ms);
  if (longest.median_ms > 0) {
    const double bound = reachable_bound_ms(floor.median_ms, longest.median_ms);
    std::printf(
        "  longest task alone in one thread %.4f ms: no schedule beats %.4f ms; microsched at "
        "%.0f%% of that\n",
        longest.median_ms, bound, 100.0 * bound / scheduled.median_ms);
  }
  for (const auto& r : w.resources(args)) {
    const std::string dynamic = r.dynamic_shared_bytes > 0
                                    ? " + " + std::to_string(r.dynamic_shared_bytes) + " dynamic"
                                    : std::string();
    std::printf(
        "  kernel %-20s %3d registers, %5zu%s B shared, %zu B local, %d blocks/SM of %d "
        "threads fit, grid %llu blocks\n",
        r.kernel.c_str(), r.registers, r.static_shared_bytes, dynamic.c_str(), r.local_bytes,
        r.blocks_per_sm, r.threads_per_block, static_cast<unsigned long long>(r.grid_blocks));
  }
}

bool print_verification(workloads::workload& w, const schedule_arguments& args) {
  const auto r = w.verify_scheduled(args);
  if (r.passed) {
    std::printf("verify: all %llu tasks processed exactly once, outputs equal to vanilla\n",
                static_cast<unsigned long long>(r.tasks));
    return true;
  }
  std::printf("verify FAILED: %llu missing, %llu duplicated, %llu differ from vanilla: %s\n",
              static_cast<unsigned long long>(r.missing),
              static_cast<unsigned long long>(r.duplicated),
              static_cast<unsigned long long>(r.mismatched), r.detail.c_str());
  return false;
}

}  // namespace

int compare_and_verify(workloads::workload& w, const schedule_arguments& args, int repetitions,
                       bool verify) {
  print_comparison(w, args, repetitions);
  return verify && !print_verification(w, args) ? 1 : 0;
}

}  // namespace microsched::samples
