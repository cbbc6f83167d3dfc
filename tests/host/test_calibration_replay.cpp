// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The replay of the automatic schedule's decisions on bench_application's per-call CSVs.
#include <doctest/doctest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibration_replay.hpp"

using namespace microsched;

namespace {

//! A CSV as bench_application writes it: every candidate on every call, `ms(c, call)` for
//! candidate c, vanilla 1.1 ms.
template <class Times>
std::string application_csv(const std::vector<schedule_arguments>& candidates, int calls,
                            Times ms) {
  std::ostringstream f;
  f << "call,vanilla,default";
  for (const auto& s : candidates) f << ",\"" << to_string(s) << '"';
  f << '\n';
  for (int i = 0; i < calls; ++i) {
    f << i << ",1.1,1.0";
    for (std::size_t c = 0; c < candidates.size(); ++c) f << ',' << ms(c, i);
    f << '\n';
  }
  return f.str();
}

bool is_budget_64(const schedule_arguments& s) {
  return s.strategy == pool_strategy::budgeted && budget_of(s) == 64 && s.blocks_per_sm == 0;
}

}  // namespace

TEST_CASE("the replay takes the calibration's choice on every call and totals what it took") {
  const auto candidates = automatic_candidates(false, {}, true, 128);
  // Direct 1 ms, the budgeted strategy at budget 64 0.5 ms, every other candidate 1.2 ms.
  const std::string csv = application_csv(candidates, 41, [&](std::size_t c, int) {
    return c == 0 ? 1.0 : (is_budget_64(candidates[c]) ? 0.5 : 1.2);
  });
  std::istringstream in(csv);
  const replay::call_times t = replay::read_application_csv(in, candidates);
  REQUIRE(t.calls() == 41);
  const replay::replay_summary s = replay::replay(t, candidates, calibration_settings{});
  CHECK(s.first_call == 1);
  CHECK(s.calls == 40);
  CHECK(s.vanilla_ms == doctest::Approx(44.0));
  CHECK(s.direct_ms == doctest::Approx(40.0));
  CHECK(s.oracle_ms == doctest::Approx(20.0));
  CHECK(s.previous_best_ms == doctest::Approx(1.1 + 39 * 0.5));  // call 1 on vanilla
  CHECK(s.report.find("chose budgeted budget=64") != std::string::npos);
  // Calibrating costs the runs of the slower candidates; then every call takes 0.5 ms.
  CHECK(s.default_ms > 20.0);
  CHECK(s.default_ms < 40.0);
  CHECK(s.below_098 > 0);  // the calibration's runs of 1.2 ms against vanilla's 1.1 ...
  CHECK(s.below_08 == 0);  // ... are 0.92x vanilla
  CHECK(replay::describe(s).find("of 40 calls below 0.98x vanilla") != std::string::npos);
}

TEST_CASE("the previous call's best lags the work by one call") {
  const auto candidates = automatic_candidates(false, {}, true, 128);
  // Direct wins even calls (1 ms against 2 ms), the budgeted strategy odd ones (1 ms against 2).
  const std::string csv = application_csv(candidates, 5, [&](std::size_t c, int call) {
    const bool wins = call % 2 == 0 ? c == 0 : is_budget_64(candidates[c]);
    return wins ? 1.0 : 2.0;
  });
  std::istringstream in(csv);
  const replay::call_times t = replay::read_application_csv(in, candidates);
  const replay::replay_summary s = replay::replay(t, candidates, calibration_settings{});
  CHECK(s.oracle_ms == doctest::Approx(4.0));
  // Call 1 on vanilla (1.1 ms), calls 2 to 4 on the previous call's winner, which loses.
  CHECK(s.previous_best_ms == doctest::Approx(1.1 + 3 * 2.0));
  CHECK(replay::describe(s).find("(the previous call's best: 56.3%)") != std::string::npos);
}

TEST_CASE("a malformed CSV is refused with the line or the column") {
  const auto candidates = automatic_candidates(false, {}, true, 128);
  const auto refused = [&](const std::string& text, const std::string& says) {
    std::istringstream in(text);
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(replay::read_application_csv(in, candidates),
                         doctest::Contains(says.c_str()), std::invalid_argument);
  };
  refused("", "empty file");
  refused("a,b,c\n", "header");
  refused("call,vanilla,default,\"direct\"\n0,1,1,1\n", "no column for candidate");
  const std::string good = application_csv(candidates, 2, [](std::size_t, int) { return 1.0; });
  std::string negative = good;
  negative.replace(negative.rfind(",1"), 2, ",-1");
  refused(negative, "line 3");
  refused(good + "2,1\n", "line 4");
  refused(good.substr(0, good.find('\n') + 1), "no calls");
  std::istringstream in(good);
  const replay::call_times t = replay::read_application_csv(in, candidates);
  CHECK_THROWS_WITH_AS((void)replay::replay(t, candidates, calibration_settings{}, 2),
                       doctest::Contains("first call 2"), std::invalid_argument);
}
