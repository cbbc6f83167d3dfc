// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The sweep records only what it measured: one point per schedule it ran, every field of it kept,
//! no plan it cannot hold, and no journal or folder of the user's changed by a refused command.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "cli_runner.hpp"
#include "fake_workload.hpp"
#include "microsched/sweep/tuning_file.hpp"
#include "sweep/cli.hpp"
#include "sweep/journal.hpp"
#include "sweep/report.hpp"
#include "temp_folder.hpp"

using namespace microsched;
using namespace microsched::sweep;
namespace fs = std::filesystem;
using namespace microsched::sweep::testing;  // run_cli, read_file, temp_folder

namespace {

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

std::string refusal_of(const std::vector<std::string>& axes) {
  try {
    (void)make_plan("fake", axes, testing::fake_parameters());
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

sweep_header header_for(const std::string& gpu, timing_options timing = {1, 3}) {
  return {"fake", gpu, timing, "2024-01-01T00:00:00Z"};
}
}  // namespace

TEST_CASE("points that differ in any schedule field are separate points, each measured") {
  temp_folder dir;
  const auto out = (dir.path / "out").string();
  auto counters = std::make_shared<testing::fake_counters>();
  const auto r = run_cli({"fake", "strategy=hybrid", "fetch=any,all,ballot:1..32:x2", "--out", out,
                          "--warmup", "0", "--repetitions", "1", "--no-plots"},
                         counters);
  INFO(r.err);
  REQUIRE(r.rc == exit_ok);
  CHECK(counters->checks == 8);
  CHECK(counters->total_timed() == 8);
  CHECK(counters->timed.size() == 8);  // eight different schedules, each timed once
  const std::string journal = read_file(fs::path(out) / "results.jsonl");
  CHECK(count_of(journal, "\"type\":\"point\"") == 8);
  const auto rows = parse_csv(read_file(fs::path(out) / "sweep.csv"));
  REQUIRE(rows.size() == 1 + 8);
  const auto fetch_col = static_cast<std::size_t>(
      std::find(rows[0].begin(), rows[0].end(), "fetch") - rows[0].begin());
  std::set<std::string> fetches;
  for (std::size_t i = 1; i < rows.size(); ++i) fetches.insert(rows[i][fetch_col]);
  CHECK(fetches.size() == 8);
}

TEST_CASE("a swept field that no swept strategy reads is refused; equal schedules run once") {
  CHECK(refusal_of({"fetch=any,all"})
            .find("'fetch' is swept, but strategy automatic does not "
                  "read it") != std::string::npos);
  CHECK(refusal_of({"strategy=hybrid", "budget=32,64"}).find("e.g. strategy=budgeted") !=
        std::string::npos);
  CHECK(refusal_of({"strategy=local", "period=4,8"}).find("e.g. strategy=warp_range") !=
        std::string::npos);
  CHECK(refusal_of({"strategy=budgeted", "budget=0"}).find("budget = 0") != std::string::npos);
  CHECK(refusal_of({"strategy=warp_range", "period=5"}).find("period = 5") != std::string::npos);
  // automatic ignores chunk, hybrid does not: 1 + 2 schedules, not 4.
  const auto plan =
      make_plan("fake", {"strategy=automatic,hybrid", "chunk=1,2"}, testing::fake_parameters());
  REQUIRE(plan.schedules().size() == 3);
  CHECK(plan.schedules()[0] == schedule_arguments{});
  CHECK(plan.size() == 3);
  CHECK(plan.combinations() == 4);
  // budget is the budgeted strategy's alone: hybrid's points keep the default.
  const auto mixed =
      make_plan("fake", {"strategy=hybrid,budgeted", "budget=32,64"}, testing::fake_parameters());
  REQUIRE(mixed.schedules().size() == 3);
  CHECK(mixed.schedules()[0].budget == 0);
  CHECK(mixed.schedules()[1].budget == 32);
  CHECK(mixed.schedules()[2].budget == 64);
}

TEST_CASE("budget and period are sweep axes, journaled, resumed and stored in the tuning file") {
  temp_folder dir;
  const auto out = (dir.path / "out").string();
  const auto tuning = (dir.path / "tuning.txt").string();
  const std::vector<std::string> args = {"fake",
                                         "strategy=budgeted,warp_range",
                                         "budget=32,64,128",
                                         "period=4,8",
                                         "--out",
                                         out,
                                         "--warmup",
                                         "0",
                                         "--repetitions",
                                         "1",
                                         "--no-plots",
                                         "--save-tuning",
                                         tuning};
  auto counters = std::make_shared<testing::fake_counters>();
  auto r = run_cli(args, counters);
  INFO(r.err);
  REQUIRE(r.rc == exit_ok);
  CHECK(counters->checks == 3 + 2);  // budgeted x 3 budgets, warp_range x 2 periods
  const auto entry = sweep::tuning_table::load(tuning).find("Fake GPU", "fake");
  REQUIRE(entry);
  CHECK(entry->schedule.strategy == pool_strategy::budgeted);
  CHECK(entry->schedule.budget == 64);  // the fake's best budget
  const auto back =
      journal::resume(fs::path(out) / "results.jsonl", header_for("Fake GPU", {0, 1}));
  schedule_arguments stream8;
  stream8.strategy = pool_strategy::warp_range;
  stream8.period = 8;
  CHECK(back.find_point("fake", stream8) != nullptr);
  schedule_arguments budget128;
  budget128.strategy = pool_strategy::budgeted;
  budget128.budget = 128;
  CHECK(back.find_point("fake", budget128) != nullptr);
}

TEST_CASE("a plan over the point limit is refused before anything is allocated") {
  const std::string why = refusal_of({"strategy=hybrid", "chunk=1:10000", "deferral=1:10000"});
  CHECK(why.find("100000000 points") != std::string::npos);
  CHECK(why.find("10000 chunk x 10000 deferral") != std::string::npos);
  CHECK(why.find("limit of " + std::to_string(max_points)) != std::string::npos);
  auto counters = std::make_shared<testing::fake_counters>();
  const auto r = run_cli(
      {"fake", "strategy=hybrid", "chunk=1:10000", "deferral=1:10000", "--dry-run"}, counters);
  CHECK(r.rc == exit_bad_input);
  CHECK(r.err.find("100000000 points") != std::string::npos);
  CHECK(refusal_of({"strategy=hybrid", "chunk=1:1000", "deferral=1:100"}).empty());
}

TEST_CASE("--resume leaves a journal that is not this sweep's untouched") {
  temp_folder dir;
  const auto path = dir.path / "results.jsonl";
  const auto refused_untouched = [&](const std::string& text, const std::string& reason) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    try {
      (void)journal::resume(path, header_for("Fake GPU"));
      FAIL("resumed " << text.substr(0, 40));
    } catch (const std::runtime_error& e) {
      CHECK_MESSAGE(std::string(e.what()).find(reason) != std::string::npos, e.what());
      CHECK_MESSAGE(std::string(e.what()).find("left as it is") != std::string::npos, e.what());
    }
    CHECK(read_file(path) == text);
  };
  // Garbage with no newline: before, the "torn last line" cut it to nothing.
  refused_untouched(std::string(2000, 'x'), "no complete line");
  refused_untouched("garbage\nmore garbage", "line 1");
  // Another GPU's journal with a torn last line: refused, and the torn line is still there.
  { auto other = journal::create(path, header_for("Other GPU"), true); }
  const std::string other_gpu = read_file(path) + R"({"type":"point","sch)";
  refused_untouched(other_gpu, "'Other GPU'");
  // Journals of older formats (five schedule fields; a schedule as a JSON object).
  std::string header = read_file(path);
  header = header.substr(0, header.find('\n') + 1);
  const auto v = header.find("\"version\":3");
  REQUIRE(v != std::string::npos);
  for (const char* older : {"1", "2"}) {
    std::string old = header;
    old.replace(v, 11, std::string("\"version\":") + older);
    refused_untouched(old, std::string("version ") + older);
  }
  // This sweep's journal with a torn line: only that line goes.
  { auto mine = journal::create(path, header_for("Fake GPU"), true); }
  const std::string good = read_file(path);
  std::ofstream(path, std::ios::binary | std::ios::app) << R"({"type":"point","sch)";
  const auto resumed = journal::resume(path, header_for("Fake GPU"));
  CHECK(resumed.repaired_lines() == 1);
  CHECK(read_file(path) == good);
}

TEST_CASE("a tuning file of an older sweep is refused before the sweep runs, and kept") {
  temp_folder dir;
  const auto tuning = dir.path / "tuning.json";
  const std::string old = R"({"format": "microsched-tuning", "version": 2, "entries": []})";
  std::ofstream(tuning) << old;
  auto counters = std::make_shared<testing::fake_counters>();
  const auto r = run_cli({"fake", "offset=1", "--out", (dir.path / "out").string(), "--no-plots",
                          "--save-tuning", tuning.string()},
                         counters);
  CHECK(r.rc == exit_bad_input);
  CHECK(r.err.find("JSON tuning files of older sweeps") != std::string::npos);
  CHECK(counters->made == 0);
  CHECK(read_file(tuning) == old);
}

TEST_CASE("without a GPU the sweep creates no folder and no file") {
  temp_folder dir;
  auto counters = std::make_shared<testing::fake_counters>();
  const auto out = dir.path / "new" / "deeper";
  const auto tuning = dir.path / "tuning.txt";
  const auto r =
      run_cli({"fake", "offset=1", "--out", out.string(), "--save-tuning", tuning.string()},
              counters, nullptr, false);
  CHECK(r.rc == exit_no_gpu);
  CHECK_FALSE(fs::exists(dir.path / "new"));
  CHECK_FALSE(fs::exists(tuning));
  // A bad output place is refused as bad input, also without a GPU, and before any work.
  std::ofstream(dir.path / "read-only.json") << "{}";
  fs::permissions(dir.path / "read-only.json", fs::perms::owner_read);
  const auto bad = run_cli({"fake", "offset=1", "--out", out.string(), "--save-tuning",
                            (dir.path / "read-only.json").string()},
                           counters, nullptr, false);
  CHECK(bad.rc == exit_bad_input);
  CHECK(bad.err.find("read-only") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path / "new"));
  CHECK(counters->made == 0);
}
