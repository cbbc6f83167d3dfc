// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "fake_workload.hpp"
#include "sweep/plan.hpp"
#include "sweep/range.hpp"

using namespace microsched;
using namespace microsched::sweep;

namespace {
std::string error_of(const std::string& text) {
  try {
    (void)parse_axis(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
bool mentions(const std::string& message, const std::string& part) {
  if (message.find(part) != std::string::npos) return true;
  MESSAGE("'" << message << "' does not mention '" << part << "'");
  return false;
}
}  // namespace

TEST_CASE("ranges from the issue expand as documented") {
  const auto chunk = parse_axis("chunk=1:4096:x2");
  CHECK(chunk.name == "chunk");
  REQUIRE(chunk.values.size() == 13);
  CHECK(chunk.values.front() == "1");
  CHECK(chunk.values[6] == "64");
  CHECK(chunk.values.back() == "4096");

  CHECK(parse_axis("deferral=1:64:x2").values ==
        std::vector<std::string>{"1", "2", "4", "8", "16", "32", "64"});
  const auto blocks = parse_axis("blocks-per-sm=1:16");
  CHECK(blocks.values.size() == 16);
  CHECK(blocks.values.back() == "16");
  CHECK(parse_axis("blocks_per_sm=auto,0,2").values == std::vector<std::string>{"auto", "2"});
  CHECK(parse_axis("strategy=local,private_pools,hybrid").values.size() == 3);

  const auto fetch = parse_axis("fetch=any,all,ballot:1..32");
  REQUIRE(fetch.values.size() == 34);
  CHECK(fetch.values[2] == "ballot:1");
  CHECK(fetch.values.back() == "ballot:32");
  CHECK(parse_axis("fetch=ballot:1..32:x2,all").values ==
        std::vector<std::string>{"ballot:1", "ballot:2", "ballot:4", "ballot:8", "ballot:16",
                                 "ballot:32", "all"});
  CHECK(parse_axis("chunk=256:1024:256").values ==
        std::vector<std::string>{"256", "512", "768", "1024"});
  CHECK(parse_axis("chunk=1:10:+4").values == std::vector<std::string>{"1", "5", "9"});
  CHECK(parse_axis("chunk=3:100:x3").values == std::vector<std::string>{"3", "9", "27", "81"});
}

TEST_CASE("workload option ranges pass through, decimals included") {
  CHECK(parse_axis("crunch=4096,16384").values == std::vector<std::string>{"4096", "16384"});
  CHECK(parse_axis("offset=0:2").values == std::vector<std::string>{"0", "1", "2"});
  CHECK(parse_axis("precision=float,double").values == std::vector<std::string>{"float", "double"});
  CHECK(parse_axis("kill=0.1:0.9:+0.2").values ==
        std::vector<std::string>{"0.1", "0.3", "0.5", "0.7", "0.9"});
  CHECK(parse_axis("scale=0.5:4:x2").values == std::vector<std::string>{"0.5", "1", "2", "4"});
  CHECK(parse_axis("shift=-2:2:2").values == std::vector<std::string>{"-2", "0", "2"});
  CHECK(parse_axis("contexts=1..3").values == std::vector<std::string>{"1", "2", "3"});
}

TEST_CASE("bad ranges are refused with the value named") {
  CHECK(mentions(error_of("chunk=0:4096"), "chunk = 0"));
  CHECK(mentions(error_of("chunk=0:4096:x2"), "chunk=0:4096:x2"));
  CHECK(mentions(error_of("chunk=0:4096:x2"), "start at 1 or more, not 0"));
  CHECK(mentions(error_of("chunk=-4"), "chunk = -4"));
  CHECK(mentions(error_of("chunk=64:8"), "above its end"));
  CHECK(mentions(error_of("chunk=1:64:x1"), "multiplier x1"));
  CHECK(mentions(error_of("chunk=1:64:0"), "step 0"));
  CHECK(mentions(error_of("chunk=1:64:zz"), "not a number"));
  CHECK(mentions(error_of("chunk=1:2:3:4"), "lo:hi"));
  CHECK(mentions(error_of("chunk=1:100000000"), "more than"));
  CHECK(mentions(error_of("chunk=eight"), "chunk = eight"));
  CHECK(mentions(error_of("deferral=0"), "deferral = 0"));
  CHECK(mentions(error_of("deferral=-3:4"), "deferral = -3"));
  CHECK(mentions(error_of("blocks-per-sm=-1"), "blocks-per-sm = -1"));
  CHECK(mentions(error_of("fetch=ballot:40"), "idle threshold = 40"));
  CHECK(mentions(error_of("fetch=ballot:0..8"), "idle threshold = 0"));
  CHECK(mentions(error_of("fetch=sometimes"), "sometimes"));
  CHECK(mentions(error_of("strategy=greedy"), "greedy"));
  CHECK(mentions(error_of("chunk"), "expected name=values"));
  CHECK(mentions(error_of("=4"), "expected name=values"));
  CHECK(mentions(error_of("chunk="), "no values"));
  CHECK(mentions(error_of("chunk=1,,2"), "empty value"));
  CHECK(mentions(error_of("fetch=ballot:..4"), "both ends"));
  CHECK(mentions(error_of("kill=0.9:0.1"), "above its end"));
  CHECK(mentions(error_of("ch unk=4"), "not a parameter name"));
}

TEST_CASE("a plan is every scenario with every schedule") {
  const auto known = testing::fake_parameters();
  const auto plan = make_plan(
      "fake", {"offset=0,1,2", "deferral=4,8", "strategy=hybrid,private_pools", "chunk=1:4:x2"},
      known);
  CHECK(plan.size() == 3 * 2 * 2 * 3);
  const auto scenarios = plan.scenarios();
  REQUIRE(scenarios.size() == 3);
  CHECK(scenario_key("fake", scenarios[1]) == "fake offset=1");
  const auto schedules = plan.schedules();
  REQUIRE(schedules.size() == 12);
  // axes in schedule order, whatever the command line order: strategy outermost, deferral inner
  CHECK(schedules[0].strategy == pool_strategy::hybrid);  // values keep the order given
  CHECK(schedules[0].chunk == 1);
  CHECK(schedules[0].deferral == 4);
  CHECK(schedules[1].deferral == 8);
  CHECK(schedules[2].chunk == 2);
  CHECK(schedules[11].strategy == pool_strategy::private_pools);
  CHECK(schedules[6].strategy == pool_strategy::private_pools);
  // unswept fields keep the library defaults
  CHECK(schedules[0].fetch == schedule_arguments{}.fetch);

  const auto empty = make_plan("fake", {}, known);
  CHECK(empty.size() == 1);
  CHECK(empty.scenarios().size() == 1);
  CHECK(empty.schedules() == std::vector<schedule_arguments>{schedule_arguments{}});

  CHECK_THROWS_WITH_AS(make_plan("fake", {"colour=red"}, known), doctest::Contains("offset crunch"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(make_plan("fake", {"chunk=1", "chunk=2"}, known),
                       doctest::Contains("given twice"), std::invalid_argument);
}
