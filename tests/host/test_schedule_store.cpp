// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "microsched/schedule/schedule_store.hpp"
#include "microsched/schedule/schedule_text.hpp"

using namespace microsched;

namespace {
constexpr store_kind kind{"microsched-test", 2, 2};

schedule_arguments budgeted(int budget) {
  schedule_arguments s;
  s.strategy = pool_strategy::budgeted;
  s.chunk = 1;
  s.budget = budget;
  return s;
}

std::string refusal(const std::string& text) {
  try {
    (void)parse_store(text, kind, "f");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a schedule store round-trips its keys and every field of each schedule") {
  const std::vector<store_record> records{{{"GPU A", "julia"}, budgeted(48)},
                                          {{"GPU B", ""}, budgeted(64)}};
  const std::string text = store_text(kind, records);
  CHECK(text.rfind("microsched-test 2\nGPU A\tjulia\t" + schedule_text(budgeted(48)) + "\n", 0) ==
        0);
  const auto back = parse_store(text, kind, "f");
  REQUIRE(back.size() == 2);
  CHECK(back[0].keys == records[0].keys);
  CHECK(back[0].schedule == records[0].schedule);
  CHECK(back[0].line == 2);
  CHECK(back[1].keys == records[1].keys);  // an empty key field stays empty
  CHECK(back[1].schedule.budget == 64);
  CHECK(back[1].line == 3);
  CHECK(parse_store("microsched-test 2\r\n\r\n", kind, "f").empty());  // CRLF, blank lines
}

TEST_CASE("a schedule store refuses what it cannot hold or read, naming the file and the line") {
  CHECK_THROWS_AS((void)store_text(kind, {{{"only one"}, budgeted(48)}}), std::invalid_argument);
  CHECK_THROWS_AS((void)store_text(kind, {{{"a\tb", "c"}, budgeted(48)}}), std::invalid_argument);
  CHECK_THROWS_AS((void)store_text(kind, {{{"a\nb", "c"}, budgeted(48)}}), std::invalid_argument);
  CHECK(refusal("") == "f:1: the file is empty");
  CHECK(refusal("microsched-test 1\n").find("f:1: version 1 of this file is not read (2 is)") == 0);
  CHECK(refusal("something else\n").find("f:1: not a microsched-test file") == 0);
  CHECK(refusal("microsched-test 2\na\tb\n").find("f:2: expected 3 tab-separated fields") == 0);
  const std::string good = schedule_text(budgeted(48));
  std::string bad = good;
  bad.replace(bad.find("chunk=1"), 7, "chunk=0");
  CHECK(refusal("microsched-test 2\na\tb\t" + good + "\n\na\tb\t" + bad + "\n").find("f:4: ") == 0);
}

TEST_CASE("a schedule store is written whole, and an unreadable one is named") {
  const auto folder =
      std::filesystem::temp_directory_path() / ("microsched-store-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const auto file = folder / "store.txt";
  save_store(file, kind, {{{"k", "1"}, budgeted(32)}});
  const auto back = load_store(file, kind);
  REQUIRE(back.size() == 1);
  CHECK(back[0].schedule.budget == 32);
  std::ofstream(file) << "junk\n";
  CHECK_THROWS_WITH_AS((void)load_store(file, kind), doctest::Contains("store.txt:1: "),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS((void)load_store(folder / "none.txt", kind),
                       doctest::Contains("cannot read"), std::runtime_error);
  CHECK_THROWS_AS(save_store(folder / "no" / "such" / "x.txt", kind, {}), std::runtime_error);
  std::filesystem::remove_all(folder);
}
