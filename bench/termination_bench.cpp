// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Termination-divergence benchmarks (the persistent-warp microscheduler). Every row measures,
// in one process and with CUDA events (warm-up, repetitions, median): vanilla, warp persistent
// threads, microsched with the default schedule, microsched with the best of a candidate list,
// the uniform-work floor and the longest task alone in one thread, then reports the ratios as
// counters. The host/ rows measure what the default schedule costs its caller on short runs
// where it keeps the direct mapping (run_host_row).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "benchmark_main.hpp"
#include "microsched/check/prize_report.hpp"
#include "microsched/device.hpp"
#include "program_main.hpp"
#include "workload.hpp"

using namespace microsched;
using namespace microsched::workloads;

namespace {

constexpr timing_options kTiming{2, 7};
constexpr timing_options kQuick{1, 3};

//! Schedules tried for "best": the knobs that matter on Hopper (fetch threshold, deferral, chunk
//! per strategy), kept short so every row finishes in seconds.
std::vector<schedule_arguments> candidates() {
  std::vector<schedule_arguments> list;
  for (const auto fetch :
       {fetch_control::any(), fetch_control::ballot(4), fetch_control::ballot(16)}) {
    for (int deferral : {16, 64, 256}) {
      schedule_arguments a;
      a.strategy = pool_strategy::hybrid;
      a.fetch = fetch;
      a.deferral = deferral;
      a.chunk = 64;
      list.push_back(a);
    }
  }
  // The sweep's best constant setting for Julia on an H100 (docs/sweep.md), and one Local.
  schedule_arguments g;
  g.strategy = pool_strategy::private_pools;
  g.chunk = 1;
  g.fetch = fetch_control::any();
  g.deferral = 64;
  list.push_back(g);
  // The termination policy's automatic grid stops at 8 blocks of 128 threads per SM
  // (scheduler.cuh); 12 blocks (what fits for double Julia) for the constant-work rows, where more
  // resident warps can help.
  schedule_arguments wide;  // ballot:16, deferral 256: the constant-work rows' best
  wide.strategy = pool_strategy::hybrid;
  wide.fetch = fetch_control::ballot(16);
  wide.deferral = 256;
  wide.chunk = 64;
  for (auto a : {wide, g}) {
    a.blocks_per_sm = 12;
    list.push_back(a);
  }
  schedule_arguments chunk32;  // hybrid with its default chunk and a longer deferral
  chunk32.strategy = pool_strategy::hybrid;
  chunk32.deferral = 256;
  list.push_back(chunk32);
  schedule_arguments l;
  l.strategy = pool_strategy::local;
  l.chunk = 4096;
  l.fetch = fetch_control::any();
  l.deferral = 64;
  list.push_back(l);
  // Runs of tasks begun within the deferral (short tasks: Monte Carlo kill 0.1, random walks),
  // refilled every 4 steps (costly steps) or every 8 (cheap steps).
  for (int period : {4, 8}) {
    for (int run : {8, 16, 32}) {
      schedule_arguments s;
      s.strategy = pool_strategy::warp_range;
      s.chunk = run;
      s.deferral = run;
      s.period = period;
      list.push_back(s);
    }
  }
  // A direct pass of `budget` steps, then the survivors on private pools.
  for (int budget : {16, 32, 48, 64, 128, 256}) {
    schedule_arguments b;
    b.strategy = pool_strategy::budgeted;
    b.budget = budget;
    b.chunk = 1;
    list.push_back(b);
  }
  return list;
}

void run_row(benchmark::State& state, const std::string& name, const options_map& options) {
  auto w = make_workload(name, options);
  const timing_stats vanilla = w->time_vanilla(kTiming);
  const timing_stats persistent = w->time_warp_persistent(kTiming);
  const schedule_arguments defaults{};
  const timing_stats scheduled_default = w->time_scheduled(defaults, kTiming);
  const std::string default_choice = w->schedule_report(defaults);
  schedule_arguments best = defaults;
  double best_quick = 1e300;
  for (const auto& candidate : candidates()) {
    double t = 0;
    try {
      t = w->time_scheduled(candidate, kQuick).median_ms;
    } catch (const std::invalid_argument&) {
      continue;  // e.g. 12 blocks per SM where fewer fit: not a candidate for this kernel
    }
    if (t < best_quick) {
      best_quick = t;
      best = candidate;
    }
  }
  const timing_stats scheduled_best = w->time_scheduled(best, kTiming);
  // The best direct form a user could have written: the bench's vanilla kernel or the library's
  // two direct forms (the textbook kernel and the grid-stride loop), whichever is fastest.
  schedule_arguments direct_form;
  direct_form.strategy = pool_strategy::direct;
  const double direct_ms = w->time_scheduled(direct_form, kTiming).median_ms;
  direct_form.strategy = pool_strategy::strided;
  const double strided_ms = w->time_scheduled(direct_form, kTiming).median_ms;
  const double best_direct_ms = std::min({vanilla.median_ms, direct_ms, strided_ms});
  // A lower bound must not exceed the best direct form (on divergence-free input the floor's own
  // loop can compile slower than the direct kernel).
  timing_stats floor = w->time_floor(kTiming);
  floor.median_ms = std::min(floor.median_ms, best_direct_ms);
  const timing_stats longest = w->time_longest_task_alone(kTiming);

  for (auto _ : state) state.SetIterationTime(scheduled_best.median_ms / 1e3);
  state.counters["vanilla_ms"] = vanilla.median_ms;
  state.counters["persistent_ms"] = persistent.median_ms;
  state.counters["default_ms"] = scheduled_default.median_ms;
  state.counters["best_ms"] = scheduled_best.median_ms;
  state.counters["floor_ms"] = floor.median_ms;
  state.counters["best_direct_ms"] = best_direct_ms;
  state.counters["default_x_vanilla"] = vanilla.median_ms / scheduled_default.median_ms;
  state.counters["default_x_best_direct"] = best_direct_ms / scheduled_default.median_ms;
  state.counters["best_x_vanilla"] = vanilla.median_ms / scheduled_best.median_ms;
  state.counters["best_x_persistent"] = persistent.median_ms / scheduled_best.median_ms;
  state.counters["floor_over_best"] = floor.median_ms / scheduled_best.median_ms;
  state.counters["vanilla_over_floor"] = vanilla.median_ms / floor.median_ms;
  state.counters["longest_alone_ms"] = longest.median_ms;
  state.counters["bound_over_default"] =
      reachable_bound_ms(floor.median_ms, longest.median_ms) / scheduled_default.median_ms;
  state.counters["noise_best_pct"] =
      100.0 * (scheduled_best.max_ms - scheduled_best.min_ms) / scheduled_best.median_ms;
  state.SetLabel("best: " + to_string(best) + "; default: " + default_choice);
}

//! What the automatic schedule costs its caller where it keeps the direct mapping: Julia at offset
//! 2 (every pixel runs the whole iteration limit, so there is nothing to remove) on images of one
//! wave of threads, runs of about 15 to 400 us. The default and the two direct forms run in turns,
//! 25 synchronised runs at a time, 8 turns each; a time is the median of a schedule's 8 medians,
//! and direct_ms the faster direct form's.
void run_host_row(benchmark::State& state, const options_map& options) {
  auto w = make_workload("julia", options);
  const schedule_arguments defaults{};
  schedule_arguments direct;
  direct.strategy = pool_strategy::direct;
  schedule_arguments strided;
  strided.strategy = pool_strategy::strided;
  (void)w->time_scheduled(defaults, kTiming);  // the calibration
  constexpr timing_options turn{2, 25};
  std::vector<double> direct_turns, strided_turns, default_turns;
  for (int k = 0; k < 8; ++k) {
    direct_turns.push_back(w->time_scheduled(direct, turn).median_ms);
    strided_turns.push_back(w->time_scheduled(strided, turn).median_ms);
    default_turns.push_back(w->time_scheduled(defaults, turn).median_ms);
  }
  const double direct_ms =
      std::min(summarize(direct_turns).median_ms, summarize(strided_turns).median_ms);
  const double default_ms = summarize(default_turns).median_ms;
  state.counters["direct_ms"] = direct_ms;
  state.counters["default_ms"] = default_ms;
  state.counters["default_x_direct"] = direct_ms / default_ms;
  for (auto _ : state) state.SetIterationTime(default_ms / 1e3);
  state.SetLabel("default: " + w->schedule_report(defaults));
}

void register_host_rows() {
  const std::vector<std::pair<const char*, const char*>> sizes = {
      {"64", "400"}, {"256", "1000"}, {"512", "4096"}};
  for (const auto& [size, crunch] : sizes) {
    const options_map o{{"width", size}, {"height", size}, {"crunch", crunch}, {"offset", "2"}};
    const std::string row = std::string("host/julia/") + size + "/crunch:" + crunch + "/offset:2";
    benchmark::RegisterBenchmark(row.c_str(), [o](benchmark::State& s) { run_host_row(s, o); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
}

void add_row(const std::string& row, const std::string& workload, const options_map& options) {
  benchmark::RegisterBenchmark(
      row.c_str(), [workload, options](benchmark::State& s) { run_row(s, workload, options); })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}

//! Short tasks, where per-task costs decide: the escaping Julia views (every pixel escapes; 9 to
//! 26 iterations on average, tails of about 1000 to 2800: julia_scenes.hpp), next to the Monte
//! Carlo rows at kill 0.1 and 0.01, Collatz stopping times (integer steps, about 230 per task,
//! a mild tail: the slowest of 32 neighbours 1.5x the mean) and random walks of 9 and 16 steps on
//! average (a few integer instructions per step, a geometric tail).
void register_short_task_rows() {
  for (const char* view : {"seahorse", "dust", "neck"}) {
    for (const char* size : {"2048", "4096"}) {
      for (const char* precision : {"float", "double"}) {
        add_row(std::string("julia-") + view + "/" + size + "/" + precision, "julia",
                {{"view", view}, {"width", size}, {"height", size}, {"precision", precision}});
      }
    }
  }
  add_row("collatz/tasks:16777216/first:2^32", "collatz", {});
  for (const char* half_width : {"3", "4"}) {
    add_row(std::string("walk/tasks:16777216/half-width:") + half_width, "walk",
            {{"half-width", half_width}});
  }
}

//! Heavy contexts and long steps: path tracing (104-byte contexts, a bounce of ten intersections
//! and a material branch per step, 4 bounces on average and 11 for the longest of 32 paths).
void register_heavy_context_rows() {
  for (const char* size : {"512", "1024"}) {
    add_row(std::string("pathtrace/") + size + "/spp:16", "pathtrace",
            {{"width", size}, {"height", size}, {"spp", "16"}});
  }
}

void register_rows() {
  for (const char* size : {"2048", "4096"}) {
    for (const char* precision : {"float", "double"}) {
      for (const char* crunch : {"4096", "16384"}) {
        for (const char* offset : {"0", "1", "2"}) {
          const options_map o{{"width", size},
                              {"height", size},
                              {"precision", precision},
                              {"crunch", crunch},
                              {"offset", offset}};
          const std::string row = std::string("julia/") + size + "/" + precision +
                                  "/crunch:" + crunch + "/offset:" + offset;
          benchmark::RegisterBenchmark(row.c_str(),
                                       [o](benchmark::State& s) { run_row(s, "julia", o); })
              ->UseManualTime()
              ->Iterations(1)
              ->Unit(benchmark::kMillisecond);
        }
      }
    }
  }
  // The first view measured (a Siegel disk, far less divergent), kept for comparison.
  for (const char* precision : {"float", "double"}) {
    for (const char* offset : {"0", "2"}) {
      const options_map o{{"precision", precision}, {"offset", offset}, {"view", "siegel"}};
      const std::string row =
          std::string("julia-siegel/2048/") + precision + "/crunch:4096/offset:" + offset;
      benchmark::RegisterBenchmark(row.c_str(),
                                   [o](benchmark::State& s) { run_row(s, "julia", o); })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
  // 2^24 tasks for every kill probability, and 2^20 at 0.001 to show the tail of a small run.
  const std::vector<std::pair<const char*, const char*>> mc_rows = {
      {"16777216", "0.1"}, {"16777216", "0.01"}, {"16777216", "0.001"}, {"1048576", "0.001"}};
  for (const auto& [tasks, kill] : mc_rows) {
    const options_map o{{"tasks", tasks}, {"kill", kill}};
    const std::string row = std::string("montecarlo/tasks:") + tasks + "/kill:" + kill;
    benchmark::RegisterBenchmark(row.c_str(),
                                 [o](benchmark::State& s) { run_row(s, "montecarlo", o); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  register_short_task_rows();
  register_heavy_context_rows();
  register_host_rows();
}

}  // namespace

int main(int argc, char** argv) {
  // --help, --version and bad arguments are answered before the GPU is looked for; without a
  // GPU the program says so and exits with programs::no_gpu_exit_code (77).
  MICROSCHED_PARSE_BENCHMARK_ARGUMENTS("bench_termination", argc, argv);
  return programs::run_main("bench_termination", [] {
    programs::require_gpu();
    const auto info = current_device();
    benchmark::AddCustomContext("gpu", describe(info));
    benchmark::AddCustomContext("default_schedule", to_string(schedule_arguments{}));
    // Each row's default starts undecided unless the caller asks for the cache: its first calls
    // (slices, calibration) are made before the timed runs, and the label says what they chose.
    if (std::getenv("MICROSCHED_CACHE") == nullptr) ::setenv("MICROSCHED_CACHE", "off", 1);
    benchmark::AddCustomContext("calibration_cache", std::getenv("MICROSCHED_CACHE"));
    register_rows();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  });
}
