// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "fake_workload.hpp"
#include "microsched/measure/timing_stats.hpp"
#include "microsched/schedule/schedule_text.hpp"
#include "sweep/plots.hpp"
#include "sweep/progress.hpp"
#include "sweep/report.hpp"

using namespace microsched;
using namespace microsched::sweep;

namespace {

timing_stats ms(double t) {
  return {t, t * 0.98, t * 1.03, 5};
}

point_record point(const std::string& scenario, pool_strategy strategy, std::uint64_t chunk,
                   double t) {
  point_record p;
  p.scenario = scenario;
  p.schedule.strategy = strategy;
  p.schedule.chunk = chunk;
  p.status = point_status::ok;
  p.time = ms(t);
  p.check_passed = true;
  p.check_tasks = 100;
  return p;
}

scenario_results scenario(const std::string& key, double vanilla,
                          std::vector<std::pair<std::uint64_t, double>> hybrid_times) {
  scenario_results s;
  s.baseline.scenario = key;
  s.baseline.options = {{"offset", key.substr(key.size() - 1)}};
  s.baseline.describe = "fake, with a \"quoted\", comma";
  s.baseline.tasks = 100;
  s.baseline.total_steps = 12345;
  s.baseline.vanilla = ms(vanilla);
  s.baseline.persistent = ms(vanilla * 1.2);
  s.baseline.floor = ms(1.0);
  for (const auto& [chunk, t] : hybrid_times) {
    s.points.push_back(point(key, pool_strategy::hybrid, chunk, t));
  }
  return s;
}

//! Three scenarios, four chunks: chunk 4 is never the best anywhere but the best constant.
sweep_results example() {
  sweep_results r;
  r.header = {"fake", "Fake GPU", {2, 5}, "2024-01-01T00:00:00Z"};
  r.option_names = {"offset"};
  r.scenarios.push_back(
      scenario("fake offset=0", 3.0, {{1, 1.30}, {4, 1.33}, {16, 1.60}, {64, 2.0}}));
  r.scenarios.push_back(
      scenario("fake offset=1", 2.0, {{1, 1.60}, {4, 1.24}, {16, 1.20}, {64, 1.5}}));
  r.scenarios.push_back(
      scenario("fake offset=2", 1.2, {{1, 1.90}, {4, 1.11}, {16, 1.20}, {64, 1.1}}));
  point_record skipped = point("fake offset=2", pool_strategy::private_pools, 8, 0);
  skipped.status = point_status::skipped;
  skipped.reason = "blocks per SM = 12: at most 8 fit, says \"occupancy\"";
  skipped.time = {};
  skipped.check_passed = false;
  r.scenarios[2].points.push_back(skipped);
  return r;
}

}  // namespace

TEST_CASE("best constant setting across scenarios, and its loss per scenario (Fig. 7 bottom)") {
  const auto r = example();
  CHECK(best_point(r.scenarios[0]) == 0u);
  CHECK(best_point(r.scenarios[1]) == 2u);
  CHECK(best_point(r.scenarios[2]) == 3u);
  const auto c = best_constant(r);
  REQUIRE(c);
  CHECK(c->schedule.chunk == 4);
  REQUIRE(c->loss.size() == 3);
  CHECK(c->loss[0] == doctest::Approx(1.33 / 1.30 - 1));
  CHECK(c->loss[1] == doctest::Approx(1.24 / 1.20 - 1));
  CHECK(c->loss[2] == doctest::Approx(1.11 / 1.10 - 1));
  CHECK(c->worst_loss == doctest::Approx(1.24 / 1.20 - 1));
  const double geo = std::cbrt(1.33 / 1.30 * 1.24 / 1.20 * 1.11 / 1.10) - 1;
  CHECK(c->mean_loss == doctest::Approx(geo));

  // A schedule that did not run in every scenario cannot be the constant one.
  auto partial = example();
  partial.scenarios[1].points.erase(partial.scenarios[1].points.begin() + 1);  // chunk 4 gone
  const auto c2 = best_constant(partial);
  REQUIRE(c2);
  CHECK(c2->schedule.chunk != 4);

  sweep_results none;
  CHECK_FALSE(best_constant(none));

  const std::string text = summary_text(r);
  // The example's points keep the library's default fetch control.
  const std::string expected = "best constant setting across 3 scenarios: strategy=hybrid fetch=" +
                               microsched::to_string(microsched::schedule_arguments{}.fetch) +
                               " chunk=4 ";
  CHECK(text.find(expected) != std::string::npos);
  CHECK(text.find("skipped 1 point(s): blocks per SM = 12") != std::string::npos);
  CHECK(text.find("1.30x the floor (30.0% above it)") != std::string::npos);
}

TEST_CASE("CSV holds every point and reads back exactly") {
  const auto r = example();
  const auto rows = parse_csv(to_csv(r));
  const auto& columns = csv_fixed_columns();
  REQUIRE(rows.size() == 1 + 13);
  REQUIRE(rows[0].size() == columns.size() + 1);
  CHECK(rows[0].back() == "offset");
  const auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(rows[0].begin(), rows[0].end(), name) -
                                    rows[0].begin());
  };
  std::size_t row = 1;
  for (const auto& sc : r.scenarios) {
    for (const auto& p : sc.points) {
      const auto& f = rows[row++];
      REQUIRE(f.size() == rows[0].size());
      CHECK(f[col("scenario")] == sc.baseline.scenario);
      CHECK(f[col("status")] == to_string(p.status));
      CHECK(f[col("reason")] == p.reason);  // quotes and commas survive
      CHECK(std::stoull(f[col("chunk")]) == p.schedule.chunk);
      CHECK(f[col("strategy")] == to_string(p.schedule.strategy));
      CHECK(f[col("offset")] == sc.baseline.options.at("offset"));
      CHECK(std::stod(f[col("vanilla_ms")]) == sc.baseline.vanilla.median_ms);
      CHECK(std::stod(f[col("floor_ms")]) == sc.baseline.floor.median_ms);
      if (p.status == point_status::ok) {
        CHECK(std::stod(f[col("median_ms")]) == p.time.median_ms);  // exact, not approximate
        CHECK(std::stod(f[col("min_ms")]) == p.time.min_ms);
        CHECK(std::stod(f[col("max_ms")]) == p.time.max_ms);
        CHECK(std::stod(f[col("speedup_vs_vanilla")]) ==
              doctest::Approx(sc.baseline.vanilla.median_ms / p.time.median_ms));
        CHECK(std::stod(f[col("over_floor")]) == doctest::Approx(p.time.median_ms));
        CHECK(f[col("check_passed")] == "true");
      } else {
        CHECK(f[col("median_ms")].empty());
      }
    }
  }
  CHECK(parse_csv("a,\"b\"\"c\",\"d,e\"\r\n1,2,3") ==
        std::vector<std::vector<std::string>>{{"a", "b\"c", "d,e"}, {"1", "2", "3"}});
  CHECK_THROWS_AS((void)parse_csv("a,\"b"), std::invalid_argument);
}

TEST_CASE("JSON holds every point and reads back exactly") {
  const auto r = example();
  const std::string text = to_json_text(r);
  const auto back = results_from_json_text(text);
  CHECK(back.header == r.header);
  CHECK(back.option_names == r.option_names);
  REQUIRE(back.scenarios.size() == r.scenarios.size());
  for (std::size_t s = 0; s < r.scenarios.size(); ++s) {
    CHECK(back.scenarios[s].baseline == r.scenarios[s].baseline);
    CHECK(back.scenarios[s].points == r.scenarios[s].points);
  }
  const auto j = nlohmann::json::parse(text);
  CHECK(parse_schedule_text(j.at("best_constant").at("schedule").get<std::string>()).chunk == 4);
  CHECK(parse_schedule_text(j.at("scenarios").at(0).at("best").at("schedule").get<std::string>())
            .chunk == 1);
  CHECK(j.at("scenarios").at(0).at("points").at(0).contains("over_floor"));
  CHECK_THROWS_AS((void)results_from_json_text("{\"format\":\"something else\"}"),
                  std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// Plots (drawn by plot_sweep.py; the ctest test sweep_plots renders them from a fake sweep)

TEST_CASE("heat map axes and the plot command") {
  CHECK_THROWS_AS(validate(heatmap_axes{"strategy", "chunk"}), std::invalid_argument);
  CHECK_THROWS_AS(validate(heatmap_axes{"chunk", "chunk"}), std::invalid_argument);
  CHECK_THROWS_AS(validate(heatmap_axes{"chunk", "colour"}), std::invalid_argument);
  CHECK_NOTHROW(validate(heatmap_axes{"fetch", "blocks-per-sm"}));
  const auto command = plot_command("out dir", heatmap_axes{"fetch", "chunk"});
  REQUIRE(command.size() == 9);
  CHECK(command[1].ends_with("plot_sweep.py"));
  CHECK(command[2] == "out dir");
  CHECK(command[4] == "fetch");
  CHECK(command[6] == "chunk");
  CHECK(command[7] == "--line-x");
  CHECK(command[8] == "chunk");
  CHECK(shell_line({"python3", "a b", "it's", "x=1"}) == "python3 'a b' 'it'\\''s' x=1");
}

TEST_CASE("run_command reports the exit status, and 127 for a program that does not exist") {
  CHECK(run_command({"sh", "-c", "exit 0"}) == 0);
  CHECK(run_command({"sh", "-c", "exit 3"}) == 3);
  CHECK(run_command({"/nonexistent/microsched-python"}) == 127);
}

TEST_CASE("the median the sweep reports is the mean of the two middle values for an even count") {
  // summarize() (measure/timing_stats.hpp) is the project's one median.
  CHECK(summarize({4.0, 1.0, 3.0, 2.0}).median_ms == 2.5);
  CHECK(summarize({5.0, 1.0, 3.0}).median_ms == 3.0);
  CHECK(summarize({7.0}).median_ms == 7.0);
  const auto t = summarize({2.0, 9.0});
  CHECK(t.median_ms == 5.5);
  CHECK(t.min_ms == 2.0);
  CHECK(t.max_ms == 9.0);
  CHECK_THROWS_AS((void)summarize({}), std::invalid_argument);
}

TEST_CASE("progress line: bar, counts, elapsed and time left from the points this invocation ran") {
  progress_event e;
  e.total = 100;
  e.done = 50;
  e.resumed = 40;
  e.label = "fake offset=0: hybrid";
  const auto line = progress_line(e, 20.0, 10);
  CHECK(line.find("[#####.....]") == 0);
  CHECK(line.find("50/100  50%") != std::string::npos);
  CHECK(line.find("elapsed 0:20") != std::string::npos);
  CHECK(line.find("left ~1:40") != std::string::npos);  // 10 points took 20 s, 50 left
  CHECK(line.find("fake offset=0: hybrid") != std::string::npos);
  e.resumed = 50;
  CHECK(progress_line(e, 1.0).find("left ~--:--") != std::string::npos);
  CHECK(format_duration(3725) == "1:02:05");
}
