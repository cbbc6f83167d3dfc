// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <doctest/doctest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "microsched/schedule/schedule_text.hpp"

using namespace microsched;

namespace {
std::string refusal_of(const std::string& text) {
  try {
    (void)parse_schedule_text(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

//! A schedule with every field off its default, so that a field the text drops shows.
schedule_arguments unusual(pool_strategy strategy) {
  schedule_arguments a;
  a.strategy = strategy;
  a.fetch = fetch_control::ballot(7);
  a.chunk = 4096;
  a.deferral = 16;
  a.blocks_per_sm = 3;
  a.budget = 48;
  a.period = 8;
  a.switching.switch_every = 5;
  a.switching.default_then = 0x80000005u;
  a.switching.fifo = true;
  return a;
}

const std::string defaults_text =
    "strategy=automatic fetch=any chunk=32 deferral=0 blocks_per_sm=0 budget=0 period=0 "
    "switch_every=1 default_then=0 fifo=false";
}  // namespace

TEST_CASE("schedule text holds every field in one fixed order") {
  CHECK(schedule_text(schedule_arguments{}) == defaults_text);
  std::set<std::string> keys;
  for (const auto& f : schedule_fields()) keys.insert(std::string(f.name));
  CHECK(keys.size() == 10);
  for (const auto& key : keys) {
    CHECK(schedule_text(schedule_arguments{}).find(key + "=") != std::string::npos);
  }
}

TEST_CASE("schedule text round-trips every strategy and every field") {
  for (const auto strategy :
       {pool_strategy::automatic, pool_strategy::direct, pool_strategy::local,
        pool_strategy::private_pools, pool_strategy::hybrid, pool_strategy::warp_range,
        pool_strategy::remapped, pool_strategy::budgeted, pool_strategy::strided}) {
    const schedule_arguments a = unusual(strategy);
    CAPTURE(schedule_text(a));
    CHECK(parse_schedule_text(schedule_text(a)) == a);
    CHECK(schedule_from_values(schedule_values(a)) == a);
  }
  for (const auto fetch : {fetch_control::any(), fetch_control::all(), fetch_control::ballot(32),
                           fetch_control::ballot(1)}) {
    schedule_arguments a;
    a.fetch = fetch;
    CHECK(parse_schedule_text(schedule_text(a)) == a);
  }
  schedule_arguments wide;
  wide.chunk = 18446744073709551615ull;
  CHECK(parse_schedule_text(schedule_text(wide)) == wide);
}

TEST_CASE("each field changes the text, so schedules that differ never share a key") {
  const schedule_arguments base{};
  const std::string text = schedule_text(base);
  auto differs = [&](auto change) {
    schedule_arguments a = base;
    change(a);
    return schedule_text(a) != text;
  };
  CHECK(differs([](schedule_arguments& a) { a.strategy = pool_strategy::hybrid; }));
  CHECK(differs([](schedule_arguments& a) { a.fetch = fetch_control::all(); }));
  CHECK(differs([](schedule_arguments& a) { a.chunk = 64; }));
  CHECK(differs([](schedule_arguments& a) { a.deferral = 8; }));
  CHECK(differs([](schedule_arguments& a) { a.blocks_per_sm = 2; }));
  CHECK(differs([](schedule_arguments& a) { a.budget = 128; }));
  CHECK(differs([](schedule_arguments& a) { a.period = 8; }));
  CHECK(differs([](schedule_arguments& a) { a.switching.switch_every = 4; }));
  CHECK(differs([](schedule_arguments& a) { a.switching.default_then = 1; }));
  CHECK(differs([](schedule_arguments& a) { a.switching.fifo = true; }));
}

TEST_CASE("schedule text keys may come in any order, separated by spaces or tabs") {
  const std::string shuffled =
      "fifo=false  chunk=32\tstrategy=automatic fetch=any deferral=0 blocks_per_sm=0 budget=0 "
      "period=0 switch_every=1 default_then=0 ";
  CHECK(parse_schedule_text(shuffled) == schedule_arguments{});
}

TEST_CASE("bad schedule text is refused, naming the key and the value") {
  const auto with = [](const std::string& from, const std::string& to) {
    std::string t = defaults_text;
    const auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  CHECK(refusal_of(with("chunk=32", "chunk=-1")).find("chunk=-1: must not be negative") !=
        std::string::npos);
  CHECK(refusal_of(with("chunk=32", "chunk=3.9")).find("chunk=3.9: not a whole number") !=
        std::string::npos);
  CHECK(refusal_of(with("deferral=0", "deferral=1e30")).find("deferral=1e30: not a whole number") !=
        std::string::npos);
  CHECK(refusal_of(with("deferral=0", "deferral=2147483648")).find("deferral=2147483648: out of") !=
        std::string::npos);
  CHECK(refusal_of(with("chunk=32", "chunk=18446744073709551616")).find("out of range") !=
        std::string::npos);
  CHECK(refusal_of(with("default_then=0", "default_then=4294967296")).find("default_then=") !=
        std::string::npos);
  CHECK(refusal_of(with("budget=0", "budget=64x")).find("budget=64x: junk after the number") !=
        std::string::npos);
  CHECK(refusal_of(with("budget=0", "budget=+64")).find("budget=+64: not a whole number") !=
        std::string::npos);
  CHECK(refusal_of(with("budget=0", "budget=")).find("budget=: no value") != std::string::npos);
  CHECK(refusal_of(with("fifo=false", "fifo=1")).find("fifo=1: expected true or false") !=
        std::string::npos);
  CHECK(refusal_of(with("strategy=automatic", "strategy=sideways")).find("strategy=sideways") !=
        std::string::npos);
  CHECK(refusal_of(with("fetch=any", "fetch=ballot:40")).find("fetch=ballot:40") !=
        std::string::npos);
  CHECK(refusal_of(defaults_text + " colour=red").find("colour=red: unknown key") !=
        std::string::npos);
  CHECK(refusal_of(defaults_text + " chunk=64").find("chunk=64: the key is given twice") !=
        std::string::npos);
  CHECK(refusal_of(with(" budget=0", "")).find("missing key budget") != std::string::npos);
  CHECK(refusal_of(defaults_text + " junk").find("'junk' is not key=value") != std::string::npos);
  CHECK(refusal_of("").find("missing key strategy") != std::string::npos);
}

TEST_CASE("parsed schedule text is validated") {
  // Each field parses, but the whole is not a schedule: validate() names it.
  CHECK(refusal_of("strategy=hybrid fetch=any chunk=0 deferral=0 blocks_per_sm=0 budget=0 period=0 "
                   "switch_every=1 default_then=0 fifo=false")
            .find("chunk size = 0") != std::string::npos);
  CHECK(refusal_of(
            "strategy=warp_range fetch=any chunk=1 deferral=0 blocks_per_sm=0 budget=0 period=5 "
            "switch_every=1 default_then=0 fifo=false")
            .find("period = 5") != std::string::npos);
  CHECK(refusal_of("strategy=hybrid fetch=any chunk=1 deferral=0 blocks_per_sm=0 budget=0 period=0 "
                   "switch_every=0 default_then=0 fifo=false")
            .find("switch_every = 0") != std::string::npos);
  // A key that is no field is refused by name.
  CHECK(refusal_of(defaults_text + " vanilla_threshold=33").find("vanilla_threshold") !=
        std::string::npos);
}
