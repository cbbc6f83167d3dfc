// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Sweeps of area workloads (tunables, no schedule, absent references) on the test double
// fake-area: the plan over tunables, bad values refused before any work, skipped combinations,
// n/a references in every output, resume.
#include <doctest/doctest.h>

#include <filesystem>

#include "cli_runner.hpp"
#include "sweep/cli.hpp"
#include "sweep/plots.hpp"
#include "sweep/report.hpp"
#include "temp_folder.hpp"

using namespace microsched;
using namespace microsched::sweep;
namespace fs = std::filesystem;
using namespace microsched::sweep::testing;  // run_cli, read_file, temp_folder

namespace {
const auto area_tunables = testing::fake_area_workload::tunables();
}  // namespace

TEST_CASE(
    "a plan sweeps a workload's tunables per point, and its schedule only where it takes one") {
  const auto plan =
      make_plan("fake-area", {"method=a,b", "level=1:8:x2"}, {}, area_tunables, false);
  CHECK(plan.scenarios().size() == 1);
  CHECK(plan.schedules().size() == 1);
  REQUIRE(plan.settings().size() == 8);
  CHECK(plan.size() == 8);
  CHECK(plan.tunable_names() == std::vector<std::string>{"method", "level"});
  CHECK(plan.settings()[1].tunables == options_map{{"method", "a"}, {"level", "2"}});
  CHECK(plan.settings()[4].tunables == options_map{{"method", "b"}, {"level", "1"}});
  CHECK(setting_key({}, {{"method", "b"}, {"level", "2"}}, false) == "level=2 method=b");
  CHECK(setting_key({}, {}, false) == "defaults");
  CHECK(setting_key({}, {{"method", "b"}}) == schedule_text({}) + " method=b");

  // Schedule axes and tunables multiply where the workload takes a schedule (switching).
  const auto both =
      make_plan("w", {"contexts=32,64", "strategy=hybrid", "chunk=16,32", "offset=0,1"},
                {{"offset", "0", ""}}, {{"contexts", "64", ""}}, true);
  CHECK(both.scenarios().size() == 2);
  CHECK(both.settings().size() == 4);
  CHECK(both.size() == 8);
  CHECK(both.settings()[1].schedule.chunk == 16);
  CHECK(both.settings()[1].tunables.at("contexts") == "64");

  // A schedule axis for a workload without a schedule, an unknown name, a name given twice.
  const auto refused = [&](std::vector<std::string> args, const char* text) {
    try {
      (void)make_plan("fake-area", args, {}, area_tunables, false);
      FAIL("accepted " << args.front());
    } catch (const std::invalid_argument& e) {
      CHECK_MESSAGE(std::string(e.what()).find(text) != std::string::npos, e.what());
    }
  };
  refused({"chunk=4"}, "the schedule does not apply");
  refused({"colour=red"}, "the parameters are: method level");
  refused({"method=a", "method=b"}, "given twice");
}

TEST_CASE("plot axes of an area workload are its tunables") {
  CHECK_NOTHROW(validate(heatmap_axes{"method", "level", "method"}, {"method", "level"}, false));
  CHECK_NOTHROW(validate(heatmap_axes{"method", "", "method"}, {"method"}, false));
  CHECK_THROWS_AS(validate(heatmap_axes{"chunk", "level", "chunk"}, {"method", "level"}, false),
                  std::invalid_argument);
  CHECK_NOTHROW(validate(heatmap_axes{"contexts", "chunk", "chunk"}, {"contexts"}, true));
  const auto d = default_axes({"level"}, {"method", "level"}, false);
  CHECK(d.x == "level");
  CHECK(d.y == "method");
  CHECK(d.line == "level");
  CHECK(default_axes({}, {"method"}, false).y.empty());
  CHECK(default_axes({}, {"contexts"}, true).x == "chunk");
}

TEST_CASE("bad tunable values stop an area sweep before any work, naming the value") {
  temp_folder dir;
  auto counters = std::make_shared<testing::fake_counters>();
  const auto out = (dir.path / "out").string();
  for (const bool gpu : {true, false}) {
    auto r = run_cli({"fake-area", "method=a,c", "--out", out}, counters, nullptr, gpu);
    CHECK(r.rc == exit_bad_input);
    CHECK(r.err.find("method = c") != std::string::npos);
    r = run_cli({"fake-area", "level=1:9", "--dry-run"}, counters, nullptr, gpu);
    CHECK(r.rc == exit_bad_input);
    CHECK(r.err.find("level = 9") != std::string::npos);
    r = run_cli({"fake-area", "chunk=4", "--dry-run"}, counters, nullptr, gpu);
    CHECK(r.rc == exit_bad_input);
    CHECK(r.err.find("does not apply") != std::string::npos);
    r = run_cli({"fake-area", "--out", out, "--heatmap-x", "chunk"}, counters, nullptr, gpu);
    CHECK(r.rc == exit_bad_input);
    CHECK(r.err.find("heat map axis 'chunk'") != std::string::npos);
    r = run_cli({"fake-area", "--out", out, "--save-tuning", (dir.path / "t.txt").string()},
                counters, nullptr, gpu);
    CHECK(r.rc == exit_bad_input);
    CHECK(r.err.find("holds schedules only") != std::string::npos);
  }
  CHECK(counters->points() == 0);
  CHECK(counters->made == 0);
  CHECK_FALSE(fs::exists(fs::path(out) / "results.jsonl"));

  const auto r = run_cli({"fake-area", "method=a,b", "level=1:8", "--dry-run"}, counters);
  CHECK(r.rc == exit_ok);
  CHECK(r.out.find("1 scenario(s) x 16 setting(s) = 16 points") != std::string::npos);
  CHECK(r.out.find("no schedule") != std::string::npos);
  CHECK(counters->made == 0);
}

TEST_CASE("an area sweep: tunables per point, combinations not compiled skipped, n/a references") {
  temp_folder dir;
  auto counters = std::make_shared<testing::fake_counters>();
  const auto out = (dir.path / "out").string();
  const std::vector<std::string> args = {"fake-area", "method=a,b", "level=2,3,8", "--out",
                                         out,         "--warmup",   "0",           "--repetitions",
                                         "3",         "--no-plots"};
  const auto r = run_cli(args, counters);
  INFO(r.err);
  REQUIRE(r.rc == exit_ok);
  CHECK(counters->made == 1);       // one scenario: built once
  CHECK(counters->baselines == 1);  // its vanilla timed once
  CHECK(counters->checks == 5);     // b with level 8 is not compiled: skipped, never checked
  CHECK(counters->total_timed() == 5);
  CHECK(r.out.find("persistent threads n/a, floor n/a") != std::string::npos);
  CHECK(r.out.find("references: persistent threads: n/a; floor: n/a (no persistent driver") !=
        std::string::npos);
  CHECK(r.out.find("best: level=3 method=b") != std::string::npos);
  CHECK(r.out.find("x the floor") == std::string::npos);
  CHECK(r.out.find("skipped 1 point(s): method b is not compiled for level 8") !=
        std::string::npos);

  const auto results = results_from_json_text(read_file(fs::path(out) / "sweep.json"));
  CHECK_FALSE(results.takes_schedule);
  CHECK(results.tunable_names == std::vector<std::string>{"method", "level"});
  REQUIRE(results.scenarios.size() == 1);
  const auto& sc = results.scenarios[0];
  CHECK(timed(sc.baseline.vanilla));
  CHECK_FALSE(timed(sc.baseline.persistent));
  CHECK_FALSE(timed(sc.baseline.floor));
  REQUIRE(sc.points.size() == 6);
  CHECK(sc.points[5].tunables == options_map{{"method", "b"}, {"level", "8"}});
  CHECK(sc.points[5].status == point_status::skipped);
  const auto best = best_point(sc);
  REQUIRE(best.has_value());
  CHECK(sc.points[*best].tunables == options_map{{"method", "b"}, {"level", "3"}});
  CHECK(ratios(sc.points[*best], sc.baseline).speedup_vs_vanilla == doctest::Approx(2.0));
  CHECK(ratios(sc.points[*best], sc.baseline).over_floor == 0);
  const std::string json = read_file(fs::path(out) / "sweep.json");
  CHECK(json.find("\"floor\": null") != std::string::npos);
  CHECK(json.find("\"over_floor\": null") != std::string::npos);

  // CSV: empty reference fields (never a number), one column per tunable.
  const auto rows = parse_csv(read_file(fs::path(out) / "sweep.csv"));
  REQUIRE(rows.size() == 7);
  const auto& header = rows[0];
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  REQUIRE(column("level") < header.size());
  CHECK(rows[1][column("persistent_ms")].empty());
  CHECK(rows[1][column("floor_ms")].empty());
  CHECK(rows[1][column("over_floor")].empty());
  CHECK_FALSE(rows[1][column("vanilla_ms")].empty());
  CHECK(rows[1][column("method")] == "a");
  CHECK(rows[6][column("level")] == "8");

  // Resume: nothing left to do, no new journal line.
  const auto lines = read_file(fs::path(out) / "results.jsonl");
  auto again = args;
  again.push_back("--resume");
  CHECK(run_cli(again, counters).rc == exit_ok);
  CHECK(read_file(fs::path(out) / "results.jsonl") == lines);
  CHECK(counters->checks == 5);
}
