// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "microsched/tuning/atomic_write.hpp"
#include "microsched/tuning/tuning_file.hpp"
#include "temp_folder.hpp"

using namespace microsched;
using namespace microsched::tuning;
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
#include <microsched/tuning/tuning_file.hpp>

//! The schedule 'sweep --save-tuning' stored for julia offset=1 on this GPU, or `fallback` when
//! the tuning file ($MICROSCHED_TUNING_FILE) has none or there is no file.
microsched::schedule_arguments julia_schedule(const microsched::schedule_arguments& fallback) {
  return microsched::tuning::tuned_schedule("julia", fallback, "julia offset=1");
}
// example-end tuned-default

TEST_CASE("the sweep guide's example gives the fallback when there is no tuning file") {
  ::unsetenv(tuning_file_variable);
  const auto fallback = schedule(pool_strategy::local, fetch_control::all(), 7, 3, 1);
  CHECK(julia_schedule(fallback) == fallback);
}

TEST_CASE("a tuning file round-trips and is looked up by GPU, workload and scenario") {
  temp_folder dir;
  const auto file = dir.path / "tuning.json";
  tuning_table t;
  const auto h100 = "NVIDIA H100 80GB HBM3";
  const auto julia_default = schedule(pool_strategy::hybrid, fetch_control::any(), 16, 8, 0);
  const auto julia_offset2 = schedule(pool_strategy::global, fetch_control::ballot(4), 2, 16, 3);
  const auto mc = schedule(pool_strategy::local, fetch_control::atomic(1), 4096, 1, 0);
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
  CHECK_FALSE(find_tuned_schedule("julia", "", dir.path / "missing.json", h100));
  ::setenv(tuning_file_variable, file.c_str(), 1);
  CHECK(find_tuned_schedule("montecarlo", "", {}, h100) == mc);
  CHECK(tuning_file_path() == file);
  CHECK(tuning_file_path("other.json") == fs::path("other.json"));
  ::unsetenv(tuning_file_variable);
  CHECK_FALSE(tuning_file_path());
  CHECK_FALSE(find_tuned_schedule("julia", "", {}, h100));
  // With no file anywhere the fallback comes back, without asking for a GPU.
  const auto fallback = schedule(pool_strategy::local, fetch_control::all(), 7, 3, 1);
  CHECK(tuned_schedule("julia", fallback) == fallback);
}

TEST_CASE("a broken tuning file is refused with the file and the problem named") {
  temp_folder dir;
  const auto file = dir.path / "bad.json";
  const auto write = [&](const std::string& text) { std::ofstream(file) << text; };
  write("{not json");
  CHECK_THROWS_WITH_AS(tuning_table::load(file), doctest::Contains("bad.json"), std::runtime_error);
  write(R"({"format": "something", "version": 1, "entries": []})");
  CHECK_THROWS_WITH_AS(tuning_table::load(file), doctest::Contains("not a microsched tuning file"),
                       std::runtime_error);
  write(R"({"format": "microsched-tuning", "version": 1, "entries": [
    {"gpu": "G", "workload": "julia", "schedule": {"strategy": "hybrid", "fetch": "any",
     "chunk": 0, "deferral": 8, "blocks_per_sm": 0}}]})");
  CHECK_THROWS_WITH_AS(tuning_table::load(file), doctest::Contains("chunk size = 0"),
                       std::runtime_error);
  write(R"({"format": "microsched-tuning", "version": 1, "entries": [
    {"gpu": "G", "workload": "julia", "schedule": {"strategy": "sideways", "fetch": "any",
     "chunk": 1, "deferral": 8, "blocks_per_sm": 0}}]})");
  CHECK_THROWS_WITH_AS(tuning_table::load(file), doctest::Contains("sideways"), std::runtime_error);
  CHECK_THROWS_WITH_AS((void)find_tuned_schedule("julia", "", file, "G"),
                       doctest::Contains("entry 0"), std::runtime_error);
  CHECK(tuning_table::load_or_empty(dir.path / "none.json").entries().empty());
}

TEST_CASE("files are written whole or not at all") {
  temp_folder dir;
  const auto file = dir.path / "out.txt";
  write_file_atomically(file, "first");
  write_file_atomically(file, "second");
  std::ifstream in(file);
  std::string text;
  in >> text;
  CHECK(text == "second");
  CHECK(fs::status(file).permissions() == (fs::perms::owner_read | fs::perms::owner_write |
                                           fs::perms::group_read | fs::perms::others_read));
  CHECK_THROWS_WITH_AS(write_file_atomically(dir.path / "no" / "such" / "x.txt", "x"),
                       doctest::Contains("no/such/x.txt"), std::runtime_error);
  CHECK_THROWS_WITH_AS(write_file_atomically(dir.path, "x"), doctest::Contains("is a folder"),
                       std::runtime_error);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++files;
  CHECK(files == 1);  // no temporaries left
  CHECK_NOTHROW(ensure_writable_folder(dir.path / "a" / "b"));
  CHECK(fs::is_directory(dir.path / "a" / "b"));
  CHECK_THROWS_WITH_AS(ensure_writable_folder(file), doctest::Contains("out.txt"),
                       std::runtime_error);
  if (::geteuid() != 0) {
    fs::permissions(dir.path / "a", fs::perms::owner_read | fs::perms::owner_exec);
    CHECK_THROWS_WITH_AS(write_file_atomically(dir.path / "a" / "x.txt", "x"),
                         doctest::Contains("a/x.txt"), std::runtime_error);
    fs::permissions(dir.path / "a", fs::perms::owner_all);
  }
}
