// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device test: a small sweep of the real julia workload, end to end through the program's
// command line (check, timing, journal, resume, CSV/JSON/PNG, tuning file), and one tiny sweep
// of each switching, remap and pipeline workload over its tunables (every point checked).
#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "microsched/device.hpp"
#include "microsched/sweep/tuning_file.hpp"
#include "sweep/cli.hpp"
#include "sweep/plots.hpp"
#include "sweep/report.hpp"

using namespace microsched;
using namespace microsched::sweep;
namespace fs = std::filesystem;

namespace {
struct run_result {
  int rc;
  std::string out, err;
};

run_result run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  cli_environment env;
  env.factory = registry_factory();
  env.workload_names = [] { return workloads::workload_names(); };
  env.gpu_name = [] { return current_device().name; };
  env.out = &out;
  env.err = &err;
  env.progress = stderr;
  const int rc = sweep_main(args, env);
  std::cout << out.str();
  std::cerr << err.str();
  return {rc, out.str(), err.str()};
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

//! Each scenario of the julia sweep: its baseline, 8 points run and checked, 8 skipped.
void check_julia_scenarios(const sweep_results& results) {
  for (const auto& sc : results.scenarios) {
    CHECK(sc.baseline.vanilla.median_ms > 0);
    CHECK(sc.baseline.floor.median_ms > 0);
    CHECK(sc.baseline.tasks == 512u * 512u);
    REQUIRE(sc.points.size() == 16);
    int ok = 0;
    for (const auto& p : sc.points) {
      if (p.schedule.blocks_per_sm == 1000) {
        CHECK(p.status == point_status::skipped);
        CHECK_FALSE(p.reason.empty());
      } else {
        CHECK(p.status == point_status::ok);
        CHECK(p.check_passed);
        CHECK(p.missing + p.duplicated + p.mismatched == 0);
        CHECK(p.time.min_ms <= p.time.median_ms);
        CHECK(p.time.median_ms <= p.time.max_ms);
        ++ok;
      }
    }
    CHECK(ok == 8);
    CHECK(best_point(sc).has_value());
  }
}

//! One heat map and one speedup plot per scenario, drawn by plot_sweep.py (matplotlib).
void check_plots(const std::string& out, const std::string& err, std::size_t scenarios) {
  if (err.find("no plots:") == std::string::npos) {
    std::size_t heatmaps = 0, speedups = 0;
    for (const auto& entry : fs::directory_iterator(out)) {
      const std::string name = entry.path().filename().string();
      if (!name.ends_with(".png") || fs::file_size(entry.path()) < 10000) continue;
      heatmaps += name.starts_with("heatmap-");
      speedups += name.starts_with("speedup-");
    }
    CHECK(heatmaps == scenarios);
    CHECK(speedups == scenarios);
  } else {
    MESSAGE("plots not checked: " << err);
  }
}
}  // namespace

TEST_CASE("a small julia sweep runs end to end on the GPU") {
  std::string pattern = (fs::temp_directory_path() / "sweep-gpu-XXXXXX").string();
  const fs::path dir = ::mkdtemp(pattern.data());
  const std::string out = (dir / "out").string();
  const std::string tuning = (dir / "tuning.txt").string();
  const std::vector<std::string> args = {
      "julia",
      "width=512",
      "height=512",
      "crunch=1024",
      "offset=0,1",
      "strategy=private_pools,hybrid",
      "chunk=1,16",
      "deferral=4,16",
      "fetch=any",
      "blocks-per-sm=auto,1000",  // 1000 blocks per SM never fit: must be skipped, not fail
      "--warmup",
      "1",
      "--repetitions",
      "3",
      "--out",
      out,
      "--save-tuning",
      tuning,
      "--quiet"};
  const auto first = run(args);
  REQUIRE(first.rc == exit_ok);
  CHECK(first.out.find("best:") != std::string::npos);
  CHECK(first.out.find("the floor") != std::string::npos);

  const auto results = results_from_json_text(slurp(fs::path(out) / "sweep.json"));
  CHECK(results.header.gpu == current_device().name);
  REQUIRE(results.scenarios.size() == 2);
  check_julia_scenarios(results);
  CHECK(best_constant(results).has_value());
  check_plots(out, first.err, results.scenarios.size());

  // The library picks the tuned default up at run time.
  const auto tuned = sweep::find_tuned_schedule("julia", "", tuning);
  REQUIRE(tuned.has_value());
  CHECK(*tuned == best_constant(results)->schedule);

  // Nothing left to do on resume: same outputs, no new journal lines.
  const auto lines_before = slurp(fs::path(out) / "results.jsonl").size();
  auto again = args;
  again.push_back("--resume");
  CHECK(run(again).rc == exit_ok);
  CHECK(slurp(fs::path(out) / "results.jsonl").size() == lines_before);
  fs::remove_all(dir);
}

namespace {
//! A tiny sweep of an area workload through the command line: every point ran (or is one of
//! `skipped_expected`, skipped with its reason), passed its check against vanilla with nothing
//! missing, duplicated or mismatched, and the references the workload lacks are n/a.
sweep_results area_sweep(std::vector<std::string> args, std::size_t points,
                         std::size_t skipped_expected = 0, bool plots = false) {
  std::string pattern = (fs::temp_directory_path() / "sweep-area-XXXXXX").string();
  const fs::path dir = ::mkdtemp(pattern.data());
  const std::string out = (dir / "out").string();
  // One warm-up run: without it the references pay the first launch (module loading), and the
  // printed speedups mean nothing; the checks do not depend on it.
  for (const char* a : {"--warmup", "1", "--repetitions", "2", "--quiet", "--out"}) {
    args.push_back(a);
  }
  args.push_back(out);
  if (!plots) args.push_back("--no-plots");
  const auto r = run(args);
  INFO(args.front() << ": " << r.err);
  REQUIRE(r.rc == exit_ok);
  const auto results = results_from_json_text(slurp(fs::path(out) / "sweep.json"));
  const auto traits = workloads::traits_of(args.front());
  REQUIRE(results.scenarios.size() == 1);
  const auto& sc = results.scenarios[0];
  CHECK(sc.baseline.vanilla.median_ms > 0);
  CHECK(timed(sc.baseline.persistent) == !traits.baselines.persistent.empty());
  CHECK(timed(sc.baseline.floor) == !traits.baselines.floor.empty());
  REQUIRE(sc.points.size() == points);
  std::size_t skipped = 0;
  for (const auto& p : sc.points) {
    INFO(setting_key(p.schedule, p.tunables) << ": " << p.reason);
    if (p.status == point_status::skipped) {
      ++skipped;
      CHECK_FALSE(p.reason.empty());
      continue;
    }
    CHECK(p.status == point_status::ok);
    CHECK(p.check_passed);
    CHECK(p.check_tasks == sc.baseline.tasks);
    CHECK(p.missing + p.duplicated + p.mismatched == 0);
    CHECK(p.time.median_ms > 0);
  }
  CHECK(skipped == skipped_expected);
  if (plots && r.err.find("no plots:") == std::string::npos) {
    std::size_t pngs = 0;
    for (const auto& entry : fs::directory_iterator(out)) {
      pngs += entry.path().extension() == ".png" && fs::file_size(entry.path()) > 10000;
    }
    CHECK(pngs == 2);  // the heat map and the line plot over the tunables
  }
  fs::remove_all(dir);
  return results;
}
}  // namespace

TEST_CASE("a tiny sweep of each switching workload checks every point against vanilla") {
  const auto mc = area_sweep({"montecarlo-branch", "tasks=8192", "outer=40", "inner=40", "p=0.05",
                              "contexts=64,128", "switch-every=1,4", "strategy=hybrid", "chunk=32"},
                             4);
  CHECK(mc.scenarios[0].baseline.floor.median_ms > 0);  // the ideal
  (void)area_sweep({"raycast", "width=64", "height=64", "window=4", "contexts=64,128",
                    "switch-every=1,2", "strategy=hybrid", "chunk=32"},
                   4);
}

TEST_CASE("a tiny sweep of each remap workload checks every point against the original kernel") {
  // HoT is compiled for two paths: paths=2 runs every method, DGI's N=4 and 64 only for 4 paths
  // (the 2-path points with them are skipped).
  (void)area_sweep({"micro-branch", "n=65536", "work=16", "paths=2",
                    "method=original,hot,hot16,dgi", "neighbouring=16,64"},
                   8, 1, true);
  (void)area_sweep({"chi-square", "n=65536", "method=original,hot,hot16,dgi"}, 4);
  (void)area_sweep({"model-tree", "n=65536", "method=original,dgi"}, 2);
}

TEST_CASE("a tiny sweep of each pipeline workload checks every point against the original loop") {
  (void)area_sweep(
      {"gafort", "chunks=4", "elements=16384", "max-trips=64", "depth=1,2", "helpers=1,2"}, 4);
  (void)area_sweep({"unwrap", "chunks=3", "frames=2", "width=256", "height=256", "radii=64",
                    "angles=256", "method=reorder-duplication,job-swapping"},
                   2);
  (void)area_sweep({"blackscholes", "chunks=4", "elements=65536", "regions=2", "depth=1,2"}, 2);
  (void)area_sweep(
      {"carried", "iterations=3", "elements=16384", "max-trips=64", "ratio=0.3,0.7", "helpers=2"},
      2);
}
