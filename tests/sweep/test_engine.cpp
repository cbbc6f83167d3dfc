// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "fake_workload.hpp"
#include "microsched/error.hpp"
#include "sweep/cli.hpp"
#include "sweep/engine.hpp"
#include "sweep/journal.hpp"
#include "sweep/report.hpp"
#include "temp_folder.hpp"

using namespace microsched;
using namespace microsched::sweep;
namespace fs = std::filesystem;
using microsched::sweep::testing::read_file;
using microsched::sweep::testing::temp_folder;

namespace {

sweep_header header_for(const std::string& gpu = "Fake GPU") {
  return {"fake", gpu, timing_options{1, 3}, "2024-01-01T00:00:00Z"};
}

sweep_plan small_plan() {
  return make_plan(
      "fake",
      {"offset=0,2", "strategy=private_pools,hybrid", "chunk=1:16:x4", "blocks-per-sm=4,12"},
      testing::fake_parameters());
}

run_options options_for(const std::atomic<bool>* stop = nullptr) {
  run_options o;
  o.timing = {1, 3};
  o.stop = stop;
  return o;
}

}  // namespace

TEST_CASE("a sweep checks, times, and reports configurations that cannot run as skipped") {
  temp_folder dir;
  auto counters = std::make_shared<testing::fake_counters>();
  const auto plan = small_plan();
  auto log = journal::create(dir.path / "results.jsonl", header_for(), false);
  CHECK(run_sweep(plan, testing::fake_factory(counters), log, options_for()));

  const auto results = collect_results(plan, log);
  REQUIRE(results.scenarios.size() == 2);
  CHECK(counters->made == 2);
  CHECK(counters->baselines == 2);
  // 2 strategies x 3 chunks x 2 blocks per scenario; blocks 12 cannot run on the fake
  for (const auto& sc : results.scenarios) {
    REQUIRE(sc.points.size() == 12);
    for (const auto& p : sc.points) {
      if (p.schedule.blocks_per_sm == 12) {
        CHECK(p.status == point_status::skipped);
        CHECK(p.reason.find("blocks per SM = 12") != std::string::npos);
        CHECK(p.time.median_ms == 0);
      } else {
        CHECK(p.status == point_status::ok);
        CHECK(p.check_passed);
        CHECK(p.check_tasks == 1000);
        CHECK(p.time.repetitions == 3);
      }
    }
  }
  CHECK(counters->total_timed() == 12);
  CHECK(counters->checks == 12);
  for (const auto& [key, n] : counters->timed) CHECK(n == 1);
}

TEST_CASE("a point failing its exactly-once check stops the sweep and is not timed") {
  temp_folder dir;
  auto counters = std::make_shared<testing::fake_counters>();
  schedule_arguments bad;
  bad.strategy = pool_strategy::hybrid;
  bad.chunk = 4;
  bad.blocks_per_sm = 4;
  counters->fail_check = schedule_text(bad);
  const auto plan = small_plan();
  auto log = journal::create(dir.path / "results.jsonl", header_for(), false);
  try {
    (void)run_sweep(plan, testing::fake_factory(counters), log, options_for());
    FAIL("the sweep went on past a failed check");
  } catch (const verification_failed_error& e) {
    const std::string what = e.what();
    CHECK(what.find("exactly-once check failed") != std::string::npos);
    CHECK(what.find("hybrid") != std::string::npos);
    CHECK(what.find("chunk=4") != std::string::npos);
    CHECK(what.find("3 missing, 1 duplicated") != std::string::npos);
    CHECK(what.find("task 17 never ran") != std::string::npos);
    CHECK(e.record().status == point_status::check_failed);
  }
  CHECK(counters->timed.count("fake offset=0 | " + schedule_text(bad)) == 0);
  // The failure is journaled for the record but never counts as finished.
  CHECK(read_file(dir.path / "results.jsonl").find("check_failed") != std::string::npos);
  CHECK(log.find_point("fake offset=0", bad) == nullptr);
}

TEST_CASE("resume runs only what is missing and gives the same results") {
  temp_folder dir;
  const auto plan = small_plan();
  const auto path = dir.path / "results.jsonl";

  // First invocation: stop after 5 finished points.
  auto first = std::make_shared<testing::fake_counters>();
  std::atomic<bool> stop{false};
  {
    auto log = journal::create(path, header_for(), false);
    auto o = options_for(&stop);
    o.on_progress = [&](const progress_event& e) {
      if (e.done >= 5) stop = true;
    };
    CHECK_FALSE(run_sweep(plan, testing::fake_factory(first), log, o));
  }
  CHECK(first->points() == 5);

  // Simulate a kill mid-write: a torn last line.
  {
    std::ofstream torn(path, std::ios::app | std::ios::binary);
    torn << R"({"type":"point","scenario":"fake offset=0","sch)";
  }

  // A second invocation resumes.
  auto second = std::make_shared<testing::fake_counters>();
  auto log = journal::resume(path, header_for());
  CHECK(log.repaired_lines() == 1);
  std::vector<progress_event> events;
  auto o = options_for();
  o.on_progress = [&](const progress_event& e) { events.push_back(e); };
  CHECK(run_sweep(plan, testing::fake_factory(second), log, o));
  REQUIRE_FALSE(events.empty());
  CHECK(events.front().resumed == 5);
  CHECK(events.back().done == events.back().total);
  CHECK(second->points() + first->points() == 24);  // every point checked once overall
  CHECK(second->baselines == 1);                    // offset=0's baseline came from the journal
  for (const auto& [key, n] : second->timed) CHECK(first->timed.count(key) == 0);

  // Same results as one uninterrupted sweep.
  temp_folder other;
  auto whole_log = journal::create(other.path / "results.jsonl", header_for(), false);
  CHECK(run_sweep(plan, testing::fake_factory(std::make_shared<testing::fake_counters>()),
                  whole_log, options_for()));
  const auto resumed = collect_results(plan, log);
  const auto whole = collect_results(plan, whole_log);
  REQUIRE(resumed.scenarios.size() == whole.scenarios.size());
  for (std::size_t s = 0; s < whole.scenarios.size(); ++s) {
    CHECK(resumed.scenarios[s].baseline == whole.scenarios[s].baseline);
    CHECK(resumed.scenarios[s].points == whole.scenarios[s].points);
  }

  // A third invocation finds nothing to do.
  auto third = std::make_shared<testing::fake_counters>();
  auto again = journal::resume(path, header_for());
  CHECK(again.repaired_lines() == 0);
  CHECK(run_sweep(plan, testing::fake_factory(third), again, options_for()));
  CHECK(third->made == 0);
  CHECK(third->checks == 0);
}

TEST_CASE("a journal is resumed only for the same workload, GPU and timing") {
  temp_folder dir;
  const auto path = dir.path / "results.jsonl";
  { auto log = journal::create(path, header_for(), false); }
  CHECK_THROWS_WITH_AS(journal::create(path, header_for(), false), doctest::Contains("--resume"),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(journal::resume(path, header_for("Other GPU")),
                       doctest::Contains("'Fake GPU'"), std::runtime_error);
  auto other_timing = header_for();
  other_timing.timing.repetitions = 9;
  CHECK_THROWS_WITH_AS(journal::resume(path, other_timing), doctest::Contains("repetitions"),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(journal::resume(dir.path / "none.jsonl", header_for()),
                       doctest::Contains("none.jsonl"), std::runtime_error);
  {
    std::ofstream bad(path, std::ios::app);
    bad << "{\"type\":\"point\",\"scenario\":\"x\"}\n";
  }
  CHECK_THROWS_WITH_AS(journal::resume(path, header_for()), doctest::Contains("line 2"),
                       std::runtime_error);
  CHECK_NOTHROW(journal::create(path, header_for(), true));
}

// ---------------------------------------------------------------------------------------------
// The program, in-process, with the fake workload

namespace microsched::sweep::testing {
cli_run run_cli(std::vector<std::string> args, std::shared_ptr<fake_counters> counters,
                const std::atomic<bool>* stop, bool have_gpu) {
  std::ostringstream out, err;
  cli_environment env;
  env.factory = testing::fake_area_factory(std::move(counters));
  env.workload_names = [] { return std::vector<std::string>{"fake", "fake-area"}; };
  env.gpu_name = [have_gpu] {
    if (!have_gpu) throw microsched::no_device_error("no NVIDIA driver is installed");
    return std::string("Fake GPU");
  };
  env.out = &out;
  env.err = &err;
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* progress = ::open_memstream(&buffer, &size);
  env.progress = progress;
  env.stop = stop;
  cli_run r;
  r.rc = sweep_main(args, env);
  std::fclose(progress);
  r.progress.assign(buffer, size);
  std::free(buffer);
  r.out = out.str();
  r.err = err.str();
  return r;
}
}  // namespace microsched::sweep::testing
using microsched::sweep::testing::run_cli;

TEST_CASE("the sweep program writes every output and prints the best setting") {
  temp_folder dir;
  auto counters = std::make_shared<testing::fake_counters>();
  const auto out = (dir.path / "out").string();
  const auto tuning = (dir.path / "tuning.txt").string();
  // --no-plots: the plots are matplotlib's (the ctest test sweep_plots draws them).
  const auto r = run_cli({"fake", "offset=0,1", "strategy=local,private_pools,hybrid",
                          "chunk=1:1024:x4", "deferral=2:32:x4", "--out", out, "--warmup", "1",
                          "--repetitions", "3", "--save-tuning", tuning, "--no-plots"},
                         counters);
  INFO(r.err);
  REQUIRE(r.rc == exit_ok);
  for (const char* name : {"results.jsonl", "sweep.csv", "sweep.json", "summary.txt"}) {
    CHECK_MESSAGE(fs::exists(fs::path(out) / name), name);
  }
  CHECK_FALSE(fs::exists(fs::path(out) / "heatmap-fake_offset-0.png"));
  CHECK(r.out.find("best: strategy=private_pools") != std::string::npos);
  CHECK(r.out.find("the floor") != std::string::npos);
  CHECK(r.out.find("best constant setting across 2 scenarios") != std::string::npos);
  CHECK(r.progress.find("108/108 100%") != std::string::npos);
  CHECK(r.progress.find("left ~") != std::string::npos);
  CHECK(fs::exists(tuning));
  // no temporary files left behind
  for (const auto& entry : fs::directory_iterator(out)) {
    CHECK(entry.path().filename().string().find(".tmp-") == std::string::npos);
  }
}

TEST_CASE("the sweep program refuses bad input before any work") {
  temp_folder dir;
  auto counters = std::make_shared<testing::fake_counters>();
  const auto out = (dir.path / "out").string();

  auto r = run_cli({"fake", "chunk=0:64:4", "--out", out}, counters);
  CHECK(r.rc == exit_bad_input);
  CHECK(r.err.find("chunk = 0") != std::string::npos);

  r = run_cli({"fake", "chunk=4", "--repetitions", "0", "--out", out}, counters);
  CHECK(r.rc == exit_bad_input);
  CHECK(r.err.find("repetitions") != std::string::npos);

  r = run_cli({"nope", "chunk=4", "--out", out}, counters);
  CHECK(r.rc == exit_bad_input);
  CHECK(r.err.find("'nope' is not registered") != std::string::npos);

  r = run_cli({"fake", "offset=7", "--out", out}, counters);
  CHECK(r.rc == exit_bad_input);
  CHECK(r.err.find("offset = 7") != std::string::npos);

  // an output folder that is a file, and one that cannot be created
  std::ofstream(dir.path / "plain-file") << "x";
  r = run_cli({"fake", "--out", (dir.path / "plain-file").string()}, counters);
  CHECK(r.rc == exit_bad_input);
  CHECK(r.err.find("plain-file") != std::string::npos);
  r = run_cli({"fake", "--out", "/proc/sweep-out"}, counters);
  CHECK(r.rc == exit_bad_input);
  CHECK(r.err.find("/proc/sweep-out") != std::string::npos);
  r = run_cli({"fake", "--out", out, "--save-tuning", "/proc/x/tuning.txt"}, counters);
  CHECK(r.rc == exit_bad_input);
  CHECK(r.err.find("/proc/x") != std::string::npos);
  r = run_cli({"fake", "--out", out, "--heatmap-x", "strategy"}, counters);
  CHECK(r.rc == exit_bad_input);
  CHECK(r.err.find("heat map axis 'strategy'") != std::string::npos);
  CHECK(counters->points() == 0);
  CHECK_FALSE(fs::exists(fs::path(out) / "results.jsonl"));

  r = run_cli({"fake", "offset=7", "--dry-run"}, counters);
  CHECK(r.rc == exit_bad_input);
  CHECK(r.err.find("offset = 7") != std::string::npos);
  r = run_cli({"fake", "offset=1", "--dry-run"}, counters);
  CHECK(r.rc == exit_ok);

  // Without a GPU: bad input is still named first; good input ends with the no-GPU code.
  r = run_cli({"fake", "offset=7", "--out", out}, counters, nullptr, false);
  CHECK(r.rc == exit_bad_input);
  r = run_cli({"fake", "--out", "/proc/sweep-out"}, counters, nullptr, false);
  CHECK(r.rc == exit_bad_input);
  r = run_cli({"fake", "offset=1", "--out", out}, counters, nullptr, false);
  CHECK(r.rc == exit_no_gpu);
  CHECK(r.rc == 77);
  CHECK(r.err.find("no NVIDIA driver") != std::string::npos);
  CHECK(counters->points() == 0);

  r = run_cli({"--help"}, counters, nullptr, false);
  CHECK(r.rc == exit_ok);
  CHECK(r.out.find("chunk=1:4096:x2") != std::string::npos);
  CHECK(r.out.find("--resume") != std::string::npos);
}

TEST_CASE("the sweep program stops on interrupt, resumes, and stops on a failed check") {
  temp_folder dir;
  const auto out = (dir.path / "out").string();
  const std::vector<std::string> args = {"fake",          "offset=0,2", "strategy=hybrid",
                                         "chunk=1:64:x2", "--out",      out};
  std::atomic<bool> stop{true};
  auto r = run_cli(args, std::make_shared<testing::fake_counters>(), &stop);
  CHECK(r.rc == exit_interrupted);
  CHECK(r.err.find("--resume") != std::string::npos);

  r = run_cli(args, std::make_shared<testing::fake_counters>());
  CHECK(r.rc == exit_bad_input);  // journal exists and no --resume
  CHECK(r.err.find("--resume") != std::string::npos);

  auto counters = std::make_shared<testing::fake_counters>();
  schedule_arguments bad;
  bad.strategy = pool_strategy::hybrid;
  bad.chunk = 8;
  counters->fail_check = schedule_text(bad);
  auto resume_args = args;
  resume_args.push_back("--resume");
  r = run_cli(resume_args, counters);
  CHECK(r.rc == exit_check_failed);
  CHECK(r.err.find("exactly-once check failed") != std::string::npos);
  CHECK_FALSE(fs::exists(fs::path(out) / "sweep.csv"));

  counters = std::make_shared<testing::fake_counters>();
  r = run_cli(resume_args, counters);
  INFO(r.err);
  CHECK(r.rc == exit_ok);
  CHECK(counters->checks == 14 - 3);  // chunk 1, 2, 4 of offset=0 were finished before
  CHECK(fs::exists(fs::path(out) / "sweep.csv"));
}
