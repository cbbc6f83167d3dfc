// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "microsched/schedule/schedule_text.hpp"
#include "microsched/sweep/tuning_file.hpp"
#include "temp_folder.hpp"

using namespace microsched;
using namespace microsched::sweep;
namespace fs = std::filesystem;
using microsched::sweep::testing::temp_folder;

namespace {
schedule_arguments schedule(pool_strategy s, fetch_control f, std::uint64_t chunk, int deferral,
                            int blocks) {
  schedule_arguments a;
  a.strategy = s;
  a.fetch = f;
  a.chunk = chunk;
  a.deferral = deferral;
  a.blocks_per_sm = blocks;
  return a;
}
}  // namespace

// example-begin tuned-default
#include <microsched/sweep/tuning_file.hpp>

//! The schedule 'sweep --save-tuning' stored for julia offset=1 on this GPU, or `fallback` when
//! the tuning file ($MICROSCHED_TUNING_FILE) has none or there is no file.
microsched::schedule_arguments julia_schedule(const microsched::schedule_arguments& fallback) {
  return microsched::sweep::tuned_schedule("julia", fallback, "julia offset=1");
}
// example-end tuned-default

TEST_CASE("the sweep guide's example gives the fallback when there is no tuning file") {
  ::unsetenv(tuning_file_variable);
  const auto fallback = schedule(pool_strategy::local, fetch_control::all(), 7, 3, 1);
  CHECK(julia_schedule(fallback) == fallback);
}

TEST_CASE("a tuning file round-trips and is looked up by GPU, workload and scenario") {
  temp_folder dir;
  const auto file = dir.path / "tuning.txt";
  tuning_table t;
  const auto h100 = "NVIDIA H100 80GB HBM3";
  const auto julia_default = schedule(pool_strategy::hybrid, fetch_control::any(), 16, 8, 0);
  const auto julia_offset2 =
      schedule(pool_strategy::private_pools, fetch_control::ballot(4), 2, 16, 3);
  const auto mc = schedule(pool_strategy::local, fetch_control::ballot(1), 4096, 1, 0);
  t.set({h100, "julia", "", julia_default, 1.5, "best constant"});
  t.set({h100, "julia", "julia offset=2", julia_offset2, 0.9, ""});
  t.set({h100, "montecarlo", "", mc, 0, ""});
  t.set({"NVIDIA H200", "julia", "", mc, 0, ""});
  t.set({h100, "julia", "", julia_default, 1.4, "replaced"});  // same key: replaces
  CHECK(t.entries().size() == 4);
  t.save(file);

  const auto back = tuning_table::load(file);
  REQUIRE(back.entries().size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(back.entries()[i].gpu == t.entries()[i].gpu);
    CHECK(back.entries()[i].workload == t.entries()[i].workload);
    CHECK(back.entries()[i].scenario == t.entries()[i].scenario);
    CHECK(back.entries()[i].schedule == t.entries()[i].schedule);
    CHECK(back.entries()[i].median_ms == t.entries()[i].median_ms);
    CHECK(back.entries()[i].note == t.entries()[i].note);
  }
  CHECK(back.find(h100, "julia")->note == "replaced");
  CHECK(back.find(h100, "julia", "julia offset=2")->schedule == julia_offset2);
  CHECK(back.find(h100, "julia", "julia offset=1")->schedule == julia_default);  // falls back
  CHECK(back.find("NVIDIA H200", "julia")->schedule == mc);
  CHECK_FALSE(back.find("NVIDIA A100", "julia"));
  CHECK_FALSE(back.find(h100, "raycast"));
  CHECK_FALSE(back.find_exact(h100, "julia", "julia offset=1"));

  // The run-time call a program makes, with the GPU named (no GPU needed in this test).
  CHECK(find_tuned_schedule("julia", "", file, h100) == julia_default);
  CHECK(find_tuned_schedule("julia", "julia offset=2", file, h100) == julia_offset2);
  CHECK_FALSE(find_tuned_schedule("raycast", "", file, h100));
  CHECK_FALSE(find_tuned_schedule("julia", "", dir.path / "missing.txt", h100));
  ::setenv(tuning_file_variable, file.c_str(), 1);
  CHECK(find_tuned_schedule("montecarlo", "", {}, h100) == mc);
  CHECK(tuning_file_path() == file);
  CHECK(tuning_file_path("other.txt") == fs::path("other.txt"));
  ::unsetenv(tuning_file_variable);
  CHECK_FALSE(tuning_file_path());
  CHECK_FALSE(find_tuned_schedule("julia", "", {}, h100));
  // With no file anywhere the fallback comes back, without asking for a GPU.
  const auto fallback = schedule(pool_strategy::local, fetch_control::all(), 7, 3, 1);
  CHECK(tuned_schedule("julia", fallback) == fallback);
}

TEST_CASE("a tuning file keeps every field of a schedule: budget, period and switching") {
  temp_folder dir;
  const auto file = dir.path / "tuning.txt";
  schedule_arguments budgeted = schedule(pool_strategy::budgeted, fetch_control::any(), 8, 0, 0);
  budgeted.budget = 48;
  schedule_arguments stream = schedule(pool_strategy::warp_range, fetch_control::all(), 16, 4, 2);
  stream.period = 8;
  schedule_arguments switching = schedule(pool_strategy::hybrid, fetch_control::any(), 32, 0, 0);
  switching.switching = {4, 0x5u, true};
  tuning_table t;
  t.set({"G", "julia", "", budgeted, 0, ""});
  t.set({"G", "montecarlo", "", stream, 0, ""});
  t.set({"G", "raycast", "", switching, 0, ""});
  t.save(file);
  CHECK(find_tuned_schedule("julia", "", file, "G") == budgeted);
  CHECK(find_tuned_schedule("montecarlo", "", file, "G") == stream);
  CHECK(find_tuned_schedule("raycast", "", file, "G") == switching);
  // The file holds each schedule in the one text form, every field of it.
  std::ifstream in(file);
  const std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(saved.find("\t" + schedule_text(switching) + "\n") != std::string::npos);
  CHECK(saved.find("switch_every=4") != std::string::npos);
}

namespace {
//! A current file with one julia entry whose schedule is the text `schedule`.
std::string tuning_text(const std::string& schedule) {
  return "microsched-tuning 4\nG\tjulia\t\t1.5\tbest constant\t" + schedule + "\n";
}

const std::string good_schedule =
    "strategy=hybrid fetch=any chunk=16 deferral=8 blocks_per_sm=0 budget=0 period=0 "
    "switch_every=1 default_then=0 fifo=false";

std::string with(const std::string& from, const std::string& to) {
  std::string t = good_schedule;
  const auto at = t.find(from);
  REQUIRE(at != std::string::npos);
  return t.replace(at, from.size(), to);
}

std::string load_error(const std::string& text) {
  try {
    (void)tuning_table::parse(text, "tuning file 'x.txt'");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a tuning file's values are never wrapped, rounded or cut: bad ones are refused") {
  CHECK(load_error(tuning_text(good_schedule)).empty());
  const auto refused = [](const std::string& schedule, const std::string& part) {
    const std::string error = load_error(tuning_text(schedule));
    CAPTURE(error);
    return error.find(part) != std::string::npos && error.find("x.txt':2: ") != std::string::npos;
  };
  CHECK(refused(with("chunk=16", "chunk=-1"), "chunk=-1: must not be negative"));
  CHECK(refused(with("chunk=16", "chunk=3.9"), "chunk=3.9: not a whole number"));
  CHECK(refused(with("deferral=8", "deferral=1e30"), "deferral=1e30: not a whole number"));
  CHECK(refused(with("deferral=8", "deferral=2147483648"), "deferral=2147483648"));
  CHECK(refused(with("chunk=16", "chunk=18446744073709551616"), "chunk="));
  CHECK(refused(with("budget=0", "budget=64x"), "budget=64x: junk after the number"));
  CHECK(refused(with("fifo=false", "fifo=0"), "fifo=0: expected true or false"));
  CHECK(refused(with("period=0", "period=5"), "period = 5"));
  CHECK(refused(with("chunk=16", "chunk=0"), "chunk size = 0"));
  CHECK(refused(with("strategy=hybrid", "strategy=sideways"), "sideways"));
  CHECK(refused(with("budget=0 ", ""), "missing key budget"));
  CHECK(refused(good_schedule + " colour=red", "colour=red: unknown key"));
}

TEST_CASE("a broken tuning file is refused with the file and the problem named") {
  temp_folder dir;
  const auto file = dir.path / "bad.txt";
  const auto write = [&](const std::string& text) { std::ofstream(file) << text; };
  const auto refused = [&](const std::string& text, const std::string& part) {
    write(text);
    try {
      (void)tuning_table::load(file);
    } catch (const std::runtime_error& e) {
      CAPTURE(e.what());
      return std::string(e.what()).find(part) != std::string::npos &&
             std::string(e.what()).find("bad.txt") != std::string::npos;
    }
    return false;
  };
  CHECK(refused("", ":1: the file is empty"));
  CHECK(refused("microsched-calibration 5\n", ":1: not a microsched-tuning file"));
  CHECK(refused("microsched-tuning 3\n", ":1: version 3 of this file is not read (4 is)"));
  // Versions 1 to 3 were JSON.
  CHECK(refused(R"({"format": "microsched-tuning", "version": 3, "entries": []})",
                ":1: starts with '{', as the JSON tuning files"));
  CHECK(refused(tuning_text(good_schedule) + "G\tjulia\n", ":3: expected 6 tab-separated fields"));
  CHECK(refused("microsched-tuning 4\nG\tjulia\t\tfast\t\t" + good_schedule + "\n",
                ":2: median ms 'fast' is not a time of 0 or more"));
  CHECK(refused("microsched-tuning 4\n\tjulia\t\t1\t\t" + good_schedule + "\n",
                ":2: gpu and workload must not be empty"));
  write(tuning_text(with("strategy=hybrid", "strategy=sideways")));
  CHECK_THROWS_WITH_AS((void)find_tuned_schedule("julia", "", file, "G"),
                       doctest::Contains("bad.txt':2: "), std::runtime_error);
  CHECK(tuning_table::load_or_empty(dir.path / "none.txt").entries().empty());
  // A field that would break the line format is refused on saving, and nothing is written.
  tuning_table t;
  t.set({"G", "julia", "", schedule(pool_strategy::direct, fetch_control::any(), 32, 0, 0), 0,
         "a\tnote"});
  CHECK_THROWS_AS(t.save(dir.path / "tab.txt"), std::invalid_argument);
  CHECK_FALSE(fs::exists(dir.path / "tab.txt"));
}
