// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Calibration files: a choice round-trips; a missing, unreadable or corrupt file, or one for
// another GPU, loads nothing with a clear message and never throws; choices made in the process
// win over the file's.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "microsched/schedule/automatic_schedule.hpp"
#include "microsched/schedule/calibration_file.hpp"

using namespace microsched;

namespace {
std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("microsched_test_" + name);
}
void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::trunc) << text;
}
}  // namespace

TEST_CASE("a schedule round-trips through its calibration text") {
  schedule_arguments s;
  s.strategy = pool_strategy::hybrid;
  s.fetch = fetch_control::ballot(8);
  s.chunk = 64;
  s.deferral = 8;
  s.blocks_per_sm = 4;
  s.switching.switch_every = 3;
  s.switching.default_then = 5;
  s.switching.vanilla_threshold = 24;
  s.switching.fifo = true;
  CHECK(parse_calibration_text(calibration_text(s)) == s);
  schedule_arguments d;
  d.strategy = pool_strategy::direct;
  CHECK(parse_calibration_text(calibration_text(d)) == d);
  schedule_arguments b;
  b.strategy = pool_strategy::budgeted;
  b.budget = 128;
  CHECK(parse_calibration_text(calibration_text(b)) == b);
  schedule_arguments st;
  st.strategy = pool_strategy::stream;
  st.chunk = 16;
  st.deferral = 16;
  st.period = 8;
  CHECK(parse_calibration_text(calibration_text(st)) == st);
  CHECK(calibration_text(st).ends_with(" 0 8"));  // the budget, then the period
  // A format 2 line has no period: the default.
  CHECK(parse_calibration_text("stream any 16 16 0 1 0 33 0 0").period == 0);
  CHECK_THROWS_WITH_AS((void)parse_calibration_text("stream any 16 16 0 1 0 33 0 0 6"),
                       doctest::Contains("period = 6"), std::invalid_argument);
  CHECK_THROWS_AS((void)parse_calibration_text("stream any 16 16 0 1 0 33 0 0 8 extra"),
                  std::invalid_argument);
  CHECK_THROWS_AS((void)parse_calibration_text("stream any 16 16 0 1 0 33 0 0 eight"),
                  std::invalid_argument);
  CHECK_THROWS_AS((void)parse_calibration_text("hybrid any 0 8 0 1 0 33 0 0"),
                  std::invalid_argument);
  CHECK_THROWS_AS((void)parse_calibration_text("automatic any 32 8 0 1 0 33 0 0"),
                  std::invalid_argument);
  CHECK_THROWS_AS((void)parse_calibration_text("hybrid any 32 8 0 1 0 33 0"),
                  std::invalid_argument);  // a version 1 line: no budget
  CHECK_THROWS_AS((void)parse_calibration_text("hybrid any 32 8 0 1 0 33 0 0 extra"),
                  std::invalid_argument);
  CHECK_THROWS_AS((void)parse_calibration_text("hybrid sometimes 32 8 0 1 0 33 0 0"),
                  std::invalid_argument);
  CHECK_THROWS_AS((void)parse_calibration_text("budgeted any 32 0 0 1 0 33 0 -4"),
                  std::invalid_argument);
}

TEST_CASE("a missing, corrupt or foreign calibration file loads nothing and says why") {
  detail::forget_calibrations();
  const auto missing = temp_file("missing");
  std::filesystem::remove(missing);
  auto r = load_calibrations(missing);
  CHECK(r.loaded == 0);
  CHECK(r.problem.find("cannot read calibration file") != std::string::npos);

  const auto bad_header = temp_file("bad_header");
  write(bad_header, "{\"format\": \"microsched-tuning\"}\n");
  r = load_calibrations(bad_header);
  CHECK(r.loaded == 0);
  CHECK(r.problem.find(":1: not a microsched calibration file") != std::string::npos);

  const auto bad_line = temp_file("bad_line");
  write(bad_line,
        "microsched-calibration 2\nkey|0:GPU A\t20\thybrid any 32 0 0 1 0 33 0 0\n"
        "key|0:GPU A\t21\thybrid any 0 0 0 1 0 33 0 0\n");
  r = load_calibrations(bad_line);
  CHECK(r.loaded == 0);  // all or nothing
  CHECK(r.problem.find(":3: chunk size = 0") != std::string::npos);
  CHECK(detail::decided_calibrations().empty());

  const auto other = temp_file("other_gpu");
  write(other, "microsched-calibration 2\nkey|0:GPU B\t20\thybrid any 32 0 0 1 0 33 0 0\n");
  r = load_calibrations(other, "0:GPU A");
  CHECK(r.loaded == 0);
  CHECK(r.other_gpus == 1);
  CHECK(r.problem.empty());

  const auto unreadable = temp_file("a_directory");
  std::filesystem::create_directories(unreadable);
  r = load_calibrations(unreadable);
  CHECK(r.loaded == 0);
  CHECK_FALSE(r.problem.empty());
  for (const auto& p : {bad_header, bad_line, other}) std::filesystem::remove(p);
  std::filesystem::remove(unreadable);
}

TEST_CASE("loaded choices are reused, saved again, and never override the process's own") {
  detail::forget_calibrations();
  schedule_arguments own;
  own.strategy = pool_strategy::direct;
  detail::seed_calibration("prog|pol|0:GPU A", 20, own);
  const auto file = temp_file("roundtrip");
  write(file,
        "microsched-calibration 2\n"
        "prog|pol|0:GPU A\t20\thybrid any 32 8 0 1 0 33 0 0\n"
        "prog|pol|0:GPU A\t23\thybrid ballot:8 64 8 0 1 0 33 0 0\n");
  const auto r = load_calibrations(file, "0:GPU A");
  CHECK(r.problem.empty());
  CHECK(r.loaded == 2);
  const auto decided = detail::decided_calibrations();
  REQUIRE(decided.size() == 2);
  for (const auto& [key, size_class, chosen] : decided) {
    CHECK(key == "prog|pol|0:GPU A");
    if (size_class == 20) CHECK(chosen.strategy == pool_strategy::direct);  // kept
    if (size_class == 23) CHECK(chosen.fetch == fetch_control::ballot(8));
  }
  save_calibrations(file);
  {
    std::ifstream in(file);
    std::string first;
    std::getline(in, first);
    CHECK(first == "microsched-calibration 3");  // written in the current format
  }
  detail::forget_calibrations();
  CHECK(load_calibrations(file).loaded == 2);
  CHECK_THROWS_AS(save_calibrations(temp_file("no_such_dir") / "x"), std::runtime_error);
  std::filesystem::remove(file);
  detail::forget_calibrations();
}
