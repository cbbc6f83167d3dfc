// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Calibration files: a choice round-trips, a managed-branch program's form with it; a missing,
// unreadable or corrupt file, or one for another GPU, loads nothing with a clear message and never
// throws; choices made in the process win over the file's, and saving merges with what the file
// holds; a managed-branch choice in progress is shared by the threads that ask for it.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "microsched/schedule/calibration.hpp"
#include "microsched/schedule/calibration_file.hpp"
#include "microsched/schedule/calibration_registry.hpp"
#include "microsched/schedule/schedule_store.hpp"
#include "microsched/schedule/schedule_text.hpp"

using namespace microsched;

namespace {
std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("microsched_test_" + name);
}
void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::trunc) << text;
}
}  // namespace

namespace {
//! A calibration file line for `key`, size class `k` and `form` holding `s`.
std::string line(const std::string& key, int k, const schedule_arguments& s,
                 const std::string& form = "-") {
  return key + "\t" + std::to_string(k) + "\t" + form + "\t" + schedule_text(s) + "\n";
}
schedule_arguments hybrid(std::uint64_t chunk) {
  schedule_arguments s;
  s.strategy = pool_strategy::hybrid;
  s.chunk = chunk;
  s.deferral = 8;
  return s;
}
}  // namespace

TEST_CASE("a missing, corrupt or foreign calibration file loads nothing and says why") {
  detail::forget_calibrations();
  const auto missing = temp_file("missing");
  std::filesystem::remove(missing);
  auto r = load_calibrations(missing);
  CHECK(r.loaded == 0);
  CHECK(r.problem.find("calibration file: cannot read") != std::string::npos);

  const auto bad_header = temp_file("bad_header");
  write(bad_header, "{\"format\": \"microsched-tuning\"}\n");
  r = load_calibrations(bad_header);
  CHECK(r.loaded == 0);
  CHECK(r.problem.find(":1: not a microsched-calibration file") != std::string::npos);

  const auto bad_line = temp_file("bad_line");
  std::string zero_chunk = line("key|0:GPU A", 21, hybrid(32));
  zero_chunk.replace(zero_chunk.find("chunk=32"), 8, "chunk=0");
  write(bad_line, "microsched-calibration 6\n" + line("key|0:GPU A", 20, hybrid(32)) + zero_chunk);
  r = load_calibrations(bad_line);
  CHECK(r.loaded == 0);  // all or nothing
  CHECK(r.problem.find(":3: ") != std::string::npos);
  CHECK(r.problem.find("chunk") != std::string::npos);
  CHECK(detail::decided_calibrations().empty());

  const auto other = temp_file("other_gpu");
  write(other, "microsched-calibration 6\n" + line("key|0:GPU B", 20, hybrid(32)));
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
  detail::seed_calibration({"prog|pol|0:GPU A", 20, detail::plain_form, own});
  const auto file = temp_file("roundtrip");
  schedule_arguments ballot = hybrid(64);
  ballot.fetch = fetch_control::ballot(8);
  write(file, "microsched-calibration 6\n" + line("prog|pol|0:GPU A", 20, hybrid(32)) +
                  line("prog|pol|0:GPU A", 23, ballot));
  const auto r = load_calibrations(file, "0:GPU A");
  CHECK(r.problem.empty());
  CHECK(r.loaded == 2);
  const auto decided = detail::decided_calibrations();
  REQUIRE(decided.size() == 2);
  for (const auto& c : decided) {
    CHECK(c.key == "prog|pol|0:GPU A");
    CHECK(c.form == detail::plain_form);
    if (c.size_class == 20) CHECK(c.schedule.strategy == pool_strategy::direct);  // kept
    if (c.size_class == 23) CHECK(c.schedule.fetch == fetch_control::ballot(8));
  }
  save_calibrations(file);
  {
    std::ifstream in(file);
    std::string first;
    std::getline(in, first);
    CHECK(first == "microsched-calibration 6");  // written in the current format
  }
  detail::forget_calibrations();
  CHECK(load_calibrations(file).loaded == 2);
  CHECK_THROWS_AS(save_calibrations(temp_file("no_such_dir") / "x"), std::runtime_error);
  std::filesystem::remove(file);
  detail::forget_calibrations();
}

TEST_CASE("a file of an older format is ignored with the reason, not misread") {
  detail::forget_calibrations();
  const auto old = temp_file("format3");
  write(old, "microsched-calibration 3\nkey|0:GPU A\t20\thybrid any 32 0 0 1 0 33 0 0 0 0\n");
  const auto r = load_calibrations(old);
  CHECK(r.loaded == 0);
  CHECK(r.problem.find(":1: version 3 of this file is not read (6 is)") != std::string::npos);
  // A format-4 file holds a key that is no field of this version.
  write(old,
        "microsched-calibration 4\nkey|0:GPU A\t20\tstrategy=hybrid fetch=any chunk=32 "
        "deferral=0 blocks_per_sm=0 budget=0 period=0 switch_every=1 default_then=0 "
        "vanilla_threshold=33 fifo=false\n");
  const auto r4 = load_calibrations(old);
  CHECK(r4.loaded == 0);
  CHECK(r4.problem.find(":1: version 4 of this file is not read (6 is)") != std::string::npos);
  // A format-5 file has no form field.
  write(old, "microsched-calibration 5\nkey|0:GPU A\t20\t" + schedule_text(hybrid(32)) + "\n");
  const auto r5 = load_calibrations(old);
  CHECK(r5.loaded == 0);
  CHECK(r5.problem.find(":1: version 5 of this file is not read (6 is)") != std::string::npos);
  std::filesystem::remove(old);
}

TEST_CASE("the cache file: on by default, moved by MICROSCHED_CACHE_DIR, off by MICROSCHED_CACHE") {
  ::setenv("MICROSCHED_CACHE_DIR", "/tmp/microsched-cache-test", 1);
  ::unsetenv("MICROSCHED_CACHE");
  REQUIRE(calibration_cache_file().has_value());
  CHECK(*calibration_cache_file() == "/tmp/microsched-cache-test/calibration.txt");
  ::setenv("MICROSCHED_CACHE", "off", 1);
  CHECK_FALSE(calibration_cache_file().has_value());
  ::unsetenv("MICROSCHED_CACHE");
  ::unsetenv("MICROSCHED_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  CHECK(*calibration_cache_file() == "/tmp/xdg/microsched/calibration.txt");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("MICROSCHED_CACHE", "off", 1);  // as test_main sets it for every other test
}

TEST_CASE("a seeded choice is adopted when its size class is first used, and kept on drift") {
  detail::forget_calibrations();
  const auto list = automatic_candidates(false);
  detail::seed_calibration({"prog|pol|0:GPU A", 20, detail::plain_form, list[3]});
  const auto state = detail::calibration_for("prog|pol|0:GPU A", task_id{1} << 19, list);
  CHECK(state->from_file());
  REQUIRE(state->choice.decided());
  CHECK(state->choice.candidate(state->choice.chosen()) == list[3]);
  // A seed that is no candidate here (another version's list) is ignored.
  schedule_arguments odd = list[2];
  odd.chunk = 12345;
  detail::seed_calibration({"prog|pol|0:GPU A", 22, detail::plain_form, odd});
  const auto other = detail::calibration_for("prog|pol|0:GPU A", task_id{1} << 21, list);
  CHECK_FALSE(other->from_file());
  CHECK_FALSE(other->choice.decided());
  detail::forget_calibrations();
}

TEST_CASE("a managed-branch program's form round-trips beside the plain choices") {
  detail::forget_calibrations();
  const std::string key = "branchy|switching|0:GPU A|driver 1";
  CHECK_FALSE(detail::earlier_form(key, 20).has_value());
  schedule_arguments direct;
  direct.strategy = pool_strategy::direct;
  detail::record_form({key, 20, "w64 o1", direct});
  detail::seed_calibration({key, 20, detail::plain_form, hybrid(32)});  // the same key, plain
  const auto file = temp_file("forms");
  save_calibrations(file);
  detail::forget_calibrations();
  const auto r = load_calibrations(file);
  CHECK(r.problem.empty());
  CHECK(r.loaded == 2);
  const auto earlier = detail::earlier_form(key, 20);
  REQUIRE(earlier.has_value());
  CHECK(earlier->form == "w64 o1");
  CHECK(earlier->schedule == direct);
  CHECK_FALSE(detail::earlier_form(key, 21).has_value());
  // A form made in this process wins over the file's, and both kinds are saved again.
  detail::record_form({key, 20, "w16 o0", direct});
  detail::seed_calibration({key, 20, "w256 o0", direct});
  REQUIRE(detail::earlier_form(key, 20).has_value());  // this process's own comes first
  CHECK(detail::earlier_form(key, 20)->form == "w16 o0");
  CHECK(detail::earlier_form(key, 20)->chosen_here);
  int forms = 0;
  for (const auto& c : detail::decided_calibrations()) {
    if (c.form == detail::plain_form) continue;
    ++forms;
    CHECK(c.form == "w16 o0");
  }
  CHECK(forms == 1);
  // An empty form is refused, the line named.
  write(file, "microsched-calibration 6\n" + line(key, 20, direct, ""));
  const auto empty = load_calibrations(file);
  CHECK(empty.loaded == 0);
  CHECK(empty.problem.find(":2: ") != std::string::npos);
  std::filesystem::remove(file);
  detail::forget_calibrations();
}

namespace {
//! A merge test's scratch: the registry emptied before and after, a file, candidates and a key.
struct merge_case {
  explicit merge_case(const std::string& name) : file(temp_file(name)) {
    detail::forget_calibrations();
  }
  ~merge_case() {
    std::filesystem::remove(file);
    std::filesystem::remove(file.string() + ".lock");
    detail::forget_calibrations();
  }
  merge_case(const merge_case&) = delete;
  merge_case& operator=(const merge_case&) = delete;
  std::filesystem::path file;
  std::vector<schedule_arguments> list = automatic_candidates(false);
  std::string key = "prog|pol|0:GPU A";
};
}  // namespace

TEST_CASE("merging keeps another process's choices and this process's own") {
  const merge_case m("merge");
  const auto& [file, list, key] = m;
  // This process loaded 20 and 21 from the file, then chose 22 and started 23 without deciding.
  write(file, "microsched-calibration 6\n" + line(key, 20, list[1]) + line(key, 21, list[1]));
  REQUIRE(load_calibrations(file).loaded == 2);
  const auto decided_here = detail::calibration_for(key, task_id{1} << 21, list);
  decided_here->choice.adopt(2);
  const auto undecided = detail::calibration_for(key, task_id{1} << 22, list);
  REQUIRE_FALSE(undecided->choice.decided());
  // Meanwhile another process wrote newer choices for 20, 22 and 23 and a form, and dropped 21.
  write(file, "microsched-calibration 6\n" + line(key, 20, list[3]) + line(key, 22, list[3]) +
                  line(key, 23, list[3]) + line("branchy|pol|0:GPU A", 20, list[0], "w64 o0"));
  merge_calibrations(file);
  detail::forget_calibrations();
  CHECK(load_calibrations(file).loaded == 4);
  std::map<int, schedule_arguments> plain;
  for (const auto& c : detail::decided_calibrations()) {
    if (c.form == detail::plain_form) plain[c.size_class] = c.schedule;
  }
  CHECK(plain.at(20) == list[3]);  // the other process's, newer than what this one loaded
  CHECK(plain.count(21) == 0);     // loaded here, gone from the file: not written back
  CHECK(plain.at(22) == list[2]);  // chosen here
  CHECK(plain.at(23) == list[3]);  // undecided here: the file's stays
  REQUIRE(detail::earlier_form("branchy|pol|0:GPU A", 20).has_value());
}

TEST_CASE("merging replaces a corrupt or older file, and leaves a newer one as it is") {
  const merge_case m("merge_replace");
  const auto& [file, list, key] = m;
  const auto here = detail::calibration_for(key, task_id{1} << 19, list);
  here->choice.adopt(1);  // a choice of this process, class 20
  for (const std::string& text :
       {std::string("not a calibration file\n"),
        "microsched-calibration 5\n" + line(key, 21, list[3]), std::string()}) {
    CAPTURE(text);
    if (text.empty()) {
      std::filesystem::remove(file);  // missing: written with this process's choices only
    } else {
      write(file, text);
    }
    merge_calibrations(file);
    const auto entries = load_store(file, {"microsched-calibration", 6, 3});
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].keys[1] == "20");
  }
  const std::string newer = "microsched-calibration 7\nanything\n";
  write(file, newer);
  CHECK_THROWS_WITH_AS(merge_calibrations(file),
                       doctest::Contains("a newer microsched's: left as it is"),
                       std::runtime_error);
  CHECK(read_store_text(file) == newer);
  const auto r = load_calibrations(file);
  CHECK(r.problem.find("a newer microsched wrote it") != std::string::npos);
}

TEST_CASE("a managed-branch choice in progress: the first state stored is every thread's") {
  detail::forget_calibrations();
  const std::string key = "branchy|pol|0:GPU A|20|options";
  CHECK(detail::find_form_state(key) == nullptr);
  std::vector<std::shared_ptr<void>> got(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < got.size(); ++i) {
    threads.emplace_back([&got, &key, i] {
      got[i] = detail::shared_form_state(key, std::make_shared<std::size_t>(i));
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& g : got) CHECK(g == got.front());
  CHECK(detail::find_form_state(key) == got.front());
  CHECK(detail::find_form_state(key + "x") == nullptr);  // other options: another state
  detail::forget_calibrations();
  CHECK(detail::find_form_state(key) == nullptr);
  CHECK(got.front().use_count() == static_cast<long>(got.size()));  // holders keep theirs
}
