// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The automatic schedule's choice on scripted timings: direct first, interleaved rounds, a slow
// candidate dropped after one run, a failing candidate dropped with its reason, the margin that
// keeps direct unless a candidate clearly wins.
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "microsched/schedule/automatic_schedule.hpp"
#include "microsched/schedule/calibration.hpp"
#include "microsched/schedule/step_counts.hpp"

using namespace microsched;

namespace {
//! Three scripted candidates: direct, then hybrid at two deferrals.
std::vector<schedule_arguments> three() {
  schedule_arguments direct, pools, short_deferral;
  direct.strategy = pool_strategy::direct;
  pools.strategy = pool_strategy::hybrid;
  short_deferral.strategy = pool_strategy::hybrid;
  short_deferral.deferral = 8;
  return {direct, pools, short_deferral};
}

//! Runs the calibration to its decision with `times[c]` ms for every run of candidate c; returns
//! the order in which candidates ran.
std::vector<int> drive(calibration& c, const std::vector<double>& times) {
  std::vector<int> order;
  for (int guard = 0; !c.decided() && guard < 100; ++guard) {
    const int i = c.next();
    order.push_back(i);
    c.record(i, times[static_cast<std::size_t>(i)]);
  }
  return order;
}
}  // namespace

TEST_CASE("the candidates start with the direct mapping") {
  for (const bool switching : {false, true}) {
    const auto list = automatic_candidates(switching);
    REQUIRE(list.size() >= 3);
    CHECK(list[0].strategy == pool_strategy::direct);
    CHECK(list[1].strategy == pool_strategy::strided);  // the direct mapping's other form
    for (const auto& a : list) CHECK_NOTHROW(validate(a));
  }
  // Runs of tasks begun within the deferral need plain task programs: never for switching.
  // Saved contexts need plain programs with trivially copyable contexts.
  for (const auto& a : automatic_candidates(true)) {
    CHECK(a.strategy != pool_strategy::warp_range);
    CHECK(a.strategy != pool_strategy::budgeted);
  }
  std::vector<int> budgets;
  for (const auto& a : automatic_candidates(false)) {
    if (a.strategy == pool_strategy::budgeted) budgets.push_back(a.budget);
  }
  CHECK(budgets == std::vector<int>{48, 64, 128, 64});  // short, middle and long tasks
  // The last with its survivors on 512 threads per SM, whatever the block size.
  for (const int threads : {64, 128, 256, 512, 1024}) {
    const auto list = automatic_candidates(false, {}, true, threads);
    REQUIRE(list.back().strategy == pool_strategy::budgeted);
    CHECK(list.back().blocks_per_sm == std::max(1, 512 / threads));
    for (const auto& a : list) {
      if (&a != &list.back()) CHECK(a.blocks_per_sm == 0);
    }
  }
  CHECK_THROWS_WITH_AS(automatic_candidates(false, {}, true, 100),
                       doctest::Contains("threads per block = 100"), std::invalid_argument);
  std::vector<int> periods;
  for (const auto& a : automatic_candidates(false)) {
    if (a.strategy == pool_strategy::warp_range) periods.push_back(period_of(a));
  }
  CHECK(periods == std::vector<int>{4, 8});  // costly steps, cheap steps
  for (const auto& a : automatic_candidates(false, {}, false))
    CHECK(a.strategy != pool_strategy::budgeted);
  switching_arguments deferred;
  deferred.switch_every = 4;
  for (const auto& a : automatic_candidates(true, deferred)) CHECK(a.switching == deferred);
}

TEST_CASE("size classes are powers of two") {
  CHECK(size_class(0) == 0);
  CHECK(size_class(1) == 1);
  CHECK(size_class(1023) == 10);
  CHECK(size_class(1024) == 11);
  CHECK(size_class(std::uint64_t{1} << 40) == 41);
}

TEST_CASE("a clear winner is chosen after interleaved rounds, direct leading each round") {
  calibration c(three(), {2, 0.03, 1.5});
  const auto order = drive(c, {1.0, 0.5, 0.6});
  CHECK(order == std::vector<int>{0, 1, 2, 0, 1, 2});
  CHECK(c.chosen() == 1);
  CHECK(c.runs() == 6);
  CHECK(c.extra_ms() == doctest::Approx(2 * 0.5 + 2 * 0.1));
  CHECK(c.report().find("chose hybrid") != std::string::npos);
}

TEST_CASE("direct stays unless a candidate beats it by more than the margin") {
  calibration c(three(), {2, 0.03, 1.5});
  drive(c, {1.0, 0.98, 0.99});
  CHECK(c.chosen() == 0);
  CHECK(c.report().find("chose direct") != std::string::npos);
}

TEST_CASE("the faster form of the direct mapping is kept without a margin") {
  // direct, strided, then hybrid pools: either direct form runs the user's kernel as it
  // stands, so the faster wins by any amount; the hybrid must be the fastest and beat direct by
  // the margin.
  auto list = three();
  list[1].strategy = pool_strategy::strided;
  const auto choose = [&](const std::vector<double>& times) {
    calibration c(list, {2, 0.03, 1.5});
    drive(c, times);
    return c.chosen();
  };
  CHECK(choose({1.0, 0.99, 1.2}) == 1);    // strided 1% faster: kept
  CHECK(choose({1.0, 1.05, 0.98}) == 0);   // hybrid only 2% ahead of direct
  CHECK(choose({1.0, 0.99, 0.98}) == 1);   // hybrid 2% ahead of direct: the faster form stays
  CHECK(choose({1.05, 1.0, 0.98}) == 2);   // hybrid the fastest and 7% ahead of direct
  CHECK(choose({1.0, 0.96, 0.965}) == 1);  // strided the fastest
  calibration c(list, {2, 0.03, 1.5});
  drive(c, {1.0, 0.99, 1.2});
  CHECK(c.report().find("chose strided") != std::string::npos);
}

TEST_CASE("on short runs the two direct forms run short_rounds times each") {
  auto list = three();
  list[1].strategy = pool_strategy::strided;
  // Each candidate's runs in turn: direct's first two are slow outliers, strided's first two
  // fast ones; two runs each would keep strided, four find direct the faster.
  const std::vector<std::vector<double>> runs{
      {0.103, 0.103, 0.092, 0.093}, {0.099, 0.100, 0.104, 0.102}, {0.110, 0.111}};
  calibration c(list, {});  // short runs: below 1 ms, four runs of each direct form
  std::vector<int> order;
  std::vector<std::size_t> taken(runs.size(), 0);
  for (int guard = 0; !c.decided() && guard < 100; ++guard) {
    const int i = c.next();
    order.push_back(i);
    const auto k = static_cast<std::size_t>(i);
    REQUIRE(taken[k] < runs[k].size());
    c.record(i, runs[k][taken[k]++]);
  }
  CHECK(order == std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1, 0, 1});
  CHECK(c.chosen() == 0);
  // Long runs: two runs each, as for every candidate.
  calibration slow(list, {});
  CHECK(drive(slow, {1.5, 1.6, 1.7}) == std::vector<int>{0, 1, 2, 0, 1, 2});
  calibration_settings bad;
  bad.short_rounds = 0;
  CHECK_THROWS_WITH_AS(calibration(list, bad), "calibration short rounds = 0: must be at least 1",
                       std::invalid_argument);
  bad = {};
  bad.short_run_ms = -1;
  CHECK_THROWS_AS(calibration(list, bad), std::invalid_argument);
}

TEST_CASE("a slow candidate runs once; a failing candidate is dropped with its reason") {
  calibration c(three(), {2, 0.03, 1.5});
  std::vector<int> order;
  order.push_back(c.next());
  c.record(0, 1.0);
  order.push_back(c.next());
  c.fail(1, "blocks per SM = 9: at most 8 fit");
  order.push_back(c.next());
  c.record(2, 2.0);  // 2x direct: not tried again
  while (!c.decided()) {
    order.push_back(c.next());
    c.record(order.back(), 1.0);
  }
  CHECK(order == std::vector<int>{0, 1, 2, 0});
  CHECK(c.chosen() == 0);
  const std::string report = c.report();
  CHECK(report.find("dropped: blocks per SM = 9") != std::string::npos);
  CHECK(report.find("2.00x slower than direct") != std::string::npos);
  CHECK_THROWS_AS(c.fail(0, "no"), std::invalid_argument);
}

TEST_CASE("bad calibration input is refused with the value named") {
  CHECK_THROWS_AS(calibration({}, {}), std::invalid_argument);
  CHECK_THROWS_WITH_AS(calibration(three(), {0, 0.03, 1.5}),
                       "calibration rounds = 0: must be at least 1", std::invalid_argument);
  CHECK_THROWS_AS(calibration(three(), {2, 1.0, 1.5}), std::invalid_argument);
  CHECK_THROWS_AS(calibration(three(), {2, 0.03, 0.5}), std::invalid_argument);
  calibration c(three());
  CHECK_THROWS_AS(c.record(7, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(c.record(0, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(c.record(0, -1.0), std::invalid_argument);
  // One candidate: decided at once.
  calibration only({three()[0]});
  CHECK(only.decided());
  CHECK(only.chosen() == 0);
}

TEST_CASE("a decided choice restarts when its time per task drifts, not when the size changes") {
  calibration c(three(), {2, 0.03, 1.5, 1.25});
  drive(c, {1.0, 0.5, 0.6});
  REQUIRE(c.chosen() == 1);
  c.record(1, 0.55);    // within 1.25x of 0.5: kept
  c.record(1, 1.0, 2);  // twice the tasks, twice the time: the same per task
  c.record(0, 5.0);     // a candidate that is not the choice: ignored once decided
  CHECK(c.decided());
  CHECK(c.restarts() == 0);
  c.record(1, 0.7);  // 1.4x once: could be noise
  CHECK(c.decided());
  c.record(1, 0.5);  // back: the streak ends
  c.record(1, 0.7);
  CHECK(c.decided());
  c.record(1, 0.71);  // 1.4x twice in a row: the work changed; direct runs once to check
  CHECK(c.decided());
  CHECK(c.next() == 0);
  CHECK(c.next_run_timed());
  c.record(0, 0.7);  // direct is now as fast as the choice (no challenger of another strategy)
  CHECK_FALSE(c.decided());
  CHECK(c.restarts() == 1);
  CHECK(c.next() == 0);  // starts over with the direct mapping
  drive(c, {1.0, 1.2, 1.3});
  CHECK(c.chosen() == 0);
  // Runs of a few microseconds: a 2x swing of 0.004 ms is below the floor, not a drift.
  calibration tiny(three(), {2, 0.03, 1.5, 1.25, 0.02, 1.0, 4, 0.002, 0.005, 1.25, 4, 0.0});
  drive(tiny, {0.004, 0.003, 0.005});
  REQUIRE(tiny.chosen() == 1);
  for (int k = 0; k < 4; ++k) tiny.record(1, 0.007);
  CHECK(tiny.decided());
  CHECK(c.report().find("1 restarts after a drift") != std::string::npos);
  CHECK_THROWS_AS(c.record(0, 1.0, 0), std::invalid_argument);
  CHECK_THROWS_AS(calibration(three(), {2, 0.03, 1.5, 1.0}), std::invalid_argument);
}

TEST_CASE("every calibrating run is timed; once decided, one run in timed_every()") {
  calibration c(three(), {2, 0.03, 1.5, 1.25});
  for (int guard = 0; !c.decided() && guard < 100; ++guard) {
    CHECK(c.next_run_timed());
    const int i = c.next();
    c.record(i, i == 1 ? 0.3 : 1.0);
  }
  REQUIRE(c.chosen() == 1);
  const int every = c.timed_every();
  CHECK(every == 4);  // 0.005 ms per timed run over 0.5% of 0.3 ms: 3.3, at least 4
  std::vector<bool> timed;
  for (int k = 0; k < 3 * every; ++k) timed.push_back(c.next_run_timed());
  for (int k = 0; k < 3 * every; ++k) {
    CHECK(timed[static_cast<std::size_t>(k)] == ((k + 1) % every == 0));
  }
  // A restart times every run again until the new choice, whose count starts afresh.
  c.record(1, 1.0);
  c.record(1, 1.0);
  c.record(0, 1.0);  // the check of direct after the drift: the choice lost its lead
  REQUIRE_FALSE(c.decided());
  CHECK(c.next_run_timed());
  CHECK(c.next_run_timed());
  for (int guard = 0; !c.decided() && guard < 100; ++guard) c.record(c.next(), 1.0);
  REQUIRE(c.decided());
  for (int k = 1; k < c.timed_every(); ++k) CHECK_FALSE(c.next_run_timed());
  CHECK(c.next_run_timed());
}

TEST_CASE("untimed runs taken at once are the ones next_run_timed() would have said false for") {
  calibration c(three(), {2, 0.03, 1.5, 1.25});
  CHECK(c.take_untimed_runs() == 0);  // calibrating: every run is timed
  drive(c, {1.0, 0.3, 1.0});
  REQUIRE(c.chosen() == 1);
  const int every = c.timed_every();
  CHECK_FALSE(c.next_run_timed());            // one untimed run counted the usual way
  CHECK(c.take_untimed_runs() == every - 2);  // the rest before the timed one
  CHECK(c.take_untimed_runs() == 0);          // none left: the next run is timed
  CHECK(c.next_run_timed());
  CHECK(c.take_untimed_runs() == every - 1);  // a whole period after a timed run
  CHECK(c.next_run_timed());
  // A drift check (direct runs against the choice): nothing to take until it is over.
  c.record(1, 1.0);
  c.record(1, 1.0);
  REQUIRE(c.decided());
  CHECK(c.take_untimed_runs() == 0);
  // A lone choice is never timed: runs are taken in the largest batches.
  calibration lone({three().front()});
  CHECK(lone.take_untimed_runs() == calibration::most_timed_every);
}

TEST_CASE("a declared timed-run cost times a decided choice that much more rarely") {
  calibration_settings costly{2, 0.03, 1.5, 1.25};
  costly.timed_cost_ms = 0.25;  // a multi-GPU lane's drain (multi_scheduler.cuh)
  calibration c(three(), costly);
  drive(c, {1.0, 0.5, 1.0});
  REQUIRE(c.chosen() == 1);
  CHECK(c.timed_every() == 100);  // 0.25 ms over 0.5% of 0.5 ms
  calibration plain(three(), {2, 0.03, 1.5, 1.25});
  drive(plain, {1.0, 0.5, 1.0});
  REQUIRE(plain.chosen() == 1);
  CHECK(plain.timed_every() == calibration::least_timed_every);  // 2, at least 4
}

TEST_CASE("short runs are timed more rarely, within the bounds; a lone choice never") {
  const auto decided_at = [](double ms) {
    calibration c(three(), {2, 0.03, 1.5, 1.25, 0.0});
    drive(c, {ms, 2 * ms, 2 * ms});
    REQUIRE(c.chosen() == 0);
    return c.timed_every();
  };
  CHECK(decided_at(10.0) == calibration::least_timed_every);
  CHECK(decided_at(1.0) == calibration::least_timed_every);
  CHECK(decided_at(0.09) == 12);
  CHECK(decided_at(0.012) == 84);
  CHECK(decided_at(0.0001) == calibration::most_timed_every);
  // The share and the cost are settings: 1% of a 0.07 ms run for 0.005 ms is one run in 8.
  calibration loose(three(), {2, 0.03, 1.5, 1.25, 0.0, 1.0, 4, 0.01, 0.005});
  drive(loose, {0.07, 0.2, 0.2});
  CHECK(loose.timed_every() == 8);
  // One candidate (a choice read from a calibration file): its times change nothing.
  calibration lone({three().front()});
  REQUIRE(lone.decided());
  for (int k = 0; k < 2 * calibration::most_timed_every; ++k) CHECK_FALSE(lone.next_run_timed());
  CHECK_THROWS_AS(calibration(three(), {2, 0.03, 1.5, 1.25, 0.0, 1.0, 4, 0.0}),
                  std::invalid_argument);
  CHECK_THROWS_AS(calibration(three(), {2, 0.03, 1.5, 1.25, 0.0, 1.0, 4, 0.01, -1.0}),
                  std::invalid_argument);
}

TEST_CASE("an explicit check of the choice restarts on one run off by the drift factor") {
  calibration c(three(), {2, 0.03, 1.5, 1.25, 0.05});
  drive(c, {0.150, 0.100, 0.120});
  REQUIRE(c.chosen() == 1);
  c.recalibrate_if_drifted(0.110);  // within 1.25x: kept
  CHECK(c.decided());
  c.recalibrate_if_drifted(0.220, 2);  // twice the tasks, twice the time: the same per task
  CHECK(c.decided());
  // 0.06 ms faster: below the drift floor, which record() would keep, but 1.67x off.
  c.recalibrate_if_drifted(0.060);
  CHECK_FALSE(c.decided());
  CHECK(c.restarts() == 1);
  c.recalibrate_if_drifted(1.0);  // while calibrating: nothing to check
  CHECK(c.restarts() == 1);
  CHECK_THROWS_AS(c.recalibrate_if_drifted(0.0), std::invalid_argument);
  CHECK_THROWS_AS(c.recalibrate_if_drifted(1.0, 0), std::invalid_argument);
}

TEST_CASE("an explicit check of a choice adopted without a time takes its reading as the time") {
  // A choice from the cache has no time; the check of the first calibrate() must not read that
  // as a drift and start the calibration over.
  calibration c(three(), {2, 0.03, 1.5, 1.25, 0.05});
  c.adopt(1);
  CHECK(c.report().find("(not timed yet)") != std::string::npos);
  c.recalibrate_if_drifted(0.40, 4);
  CHECK(c.decided());
  CHECK(c.settled());
  CHECK(c.restarts() == 0);
  CHECK(c.report().find("(0.400 ms; direct not timed)") != std::string::npos);  // the whole call
  c.recalibrate_if_drifted(0.11);                                               // the same per task
  CHECK(c.restarts() == 0);
  c.recalibrate_if_drifted(0.20);  // 2x per task: the work changed
  CHECK(c.restarts() == 1);
  // Adopted to be verified: the reading is the reference, then direct and a challenger run.
  calibration v(three(), {2, 0.03, 1.5, 1.25, 0.05});
  v.adopt(2, 0, 1, true);
  v.recalibrate_if_drifted(0.10);
  CHECK(v.decided());
  CHECK_FALSE(v.settled());
  CHECK(v.restarts() == 0);
}

TEST_CASE("after a drift, candidates far slower than direct sit the new calibration out") {
  calibration_settings settings;
  settings.short_run_ms = 0;  // one round of each, to keep the script short
  settings.rounds = 1;
  calibration c(three(), settings);
  drive(c, {1.0, 0.5, 3.0});  // candidate 2: 3x direct, past the drop factor
  REQUIRE(c.chosen() == 1);
  const auto drift = [&] {
    c.record(1, 2.0);
    c.record(1, 2.0);
    c.record(0, 2.0);  // direct checked: no slower than the choice now
    REQUIRE_FALSE(c.decided());
  };
  for (int restart = 1; restart <= 4; ++restart) {
    drift();
    const auto order = drive(c, {1.0, 0.5, 3.0});
    CAPTURE(restart);
    const bool full = restart % settings.full_restart_every == 0;
    CHECK((std::find(order.begin(), order.end(), 2) != order.end()) == full);
    if (!full)
      CHECK(c.report().find("far slower than direct before the work changed") != std::string::npos);
  }
}

TEST_CASE("a short call keeps direct untimed; a long call times every candidate") {
  const auto list = automatic_candidates(false);
  calibration c(list, {});
  std::vector<double> times(list.size(), 0.01);
  times[0] = 0.02;  // direct: a call shorter than short_call_ms
  const auto order = drive(c, times);
  CHECK(order == std::vector<int>{0});
  CHECK(c.chosen() == 0);
  CHECK(c.report().find("untimed: a call this short") != std::string::npos);
  CHECK(c.kept_for_short_calls());  // what the per-call following takes over
  c.restart();
  CHECK_FALSE(c.decided());
  CHECK_FALSE(c.kept_for_short_calls());
  c.adopt(0);
  CHECK_FALSE(c.kept_for_short_calls());  // a choice from elsewhere is not a short call seen
  calibration l(list, {});
  std::vector<double> long_times(list.size(), 1.2);
  long_times[0] = 1.0;
  const auto all = drive(l, long_times);
  for (int i = 0; i < static_cast<int>(list.size()); ++i) {
    CHECK(std::find(all.begin(), all.end(), i) != all.end());
  }
  CHECK_FALSE(l.kept_for_short_calls());
}

TEST_CASE("an adopted choice is decided untimed; its first timed run is the reference") {
  calibration c(three(), {2, 0.03, 1.5, 1.25, 0.0});
  c.adopt(2);
  CHECK(c.decided());
  CHECK(c.chosen() == 2);
  c.record(2, 1.0);  // the reference
  c.record(2, 1.1);
  c.record(2, 1.1);
  CHECK(c.decided());
  c.record(2, 2.0);
  c.record(2, 2.0);  // twice off by 2x: the work changed
  c.record(0, 1.9);  // and direct is as fast
  CHECK_FALSE(c.decided());
  calibration timed(three(), {2, 0.03, 1.5, 1.25, 0.0});
  timed.adopt(1, 4.0, 1000);  // from slices of one call: 4 ms expected for 1000 tasks
  timed.record(1, 9.0, 1000);
  timed.record(1, 9.0, 1000);
  timed.record(0, 20.0, 1000);  // direct far slower still: the choice stays, 9 ms its reference
  CHECK(timed.decided());
  CHECK(timed.chosen() == 1);
  timed.record(1, 9.5, 1000);
  timed.record(1, 9.5, 1000);
  CHECK(timed.decided());
  CHECK(timed.report().find("kept after 1 checks against direct") != std::string::npos);
  CHECK_THROWS_AS(timed.adopt(5), std::invalid_argument);
  CHECK_THROWS_AS(timed.adopt(1, -1.0), std::invalid_argument);
}

TEST_CASE(
    "a drift of direct to longer work checks the challenger, then restarts; shorter work never") {
  calibration c(three(), {2, 0.03, 1.5, 1.25, 0.0, 0.0});
  drive(c, {1.0, 1.2, 1.3});
  REQUIRE(c.chosen() == 0);
  c.record(0, 0.5);
  c.record(0, 0.5);  // shorter: direct stays, 0.5 its reference
  CHECK(c.decided());
  c.record(0, 0.5);
  CHECK(c.decided());
  c.record(0, 2.0);
  c.record(0, 2.0);  // longer: another candidate may now win; first the runner-up, timed once
  CHECK(c.next() == 1);
  CHECK(c.next_run_timed());
  c.record(1, 2.5);
  CHECK(c.next() == 0);  // then direct once more, on the same work as the challenger
  CHECK(c.next_run_timed());
  c.record(0, 2.1);  // the challenger lost against both readings: the calibration starts over
  CHECK_FALSE(c.decided());
  CHECK(c.restarts() == 1);
  // The same drift where the runner-up wins: it takes over at once, no restart.
  calibration won(three(), {2, 0.03, 1.5, 1.25, 0.0, 0.0});
  drive(won, {1.0, 1.2, 1.3});
  won.record(0, 2.0);
  won.record(0, 2.0);
  won.record(1, 1.2);
  CHECK(won.chosen() == 0);
  won.record(0, 2.0);
  CHECK(won.chosen() == 1);
  CHECK(won.restarts() == 0);
  CHECK(won.report().find("1 switches to a faster challenger") != std::string::npos);
}

TEST_CASE("a check of direct during which the work changes decides nothing") {
  // Direct drifts to long work, the long stretch ends before the challenger's run: the
  // challenger's short-work time must not count as a win against direct's long-work time.
  calibration c(three(), {2, 0.03, 1.5, 1.25, 0.0, 0.0});
  drive(c, {1.0, 1.2, 1.3});
  REQUIRE(c.chosen() == 0);
  c.record(0, 4.0);
  c.record(0, 4.0);  // long work: the check starts
  c.record(1, 1.1);  // the challenger's run, on short work again
  c.record(0, 1.0);  // direct after it: short work, 4x off its first reading
  CHECK(c.chosen() == 0);
  CHECK(c.restarts() == 0);
  CHECK(c.report().find("1 checks inconclusive") != std::string::npos);
  // Direct's reference is its latest reading: short work runs on without a new check.
  c.record(0, 1.0);
  c.record(0, 1.0);
  CHECK(c.settled());
  CHECK(c.chosen() == 0);
}

TEST_CASE("work that changes back and forth: a choice that saved S stays while it loses little") {
  // Direct on short work; longer work where the runner-up saves 0.8 ms a run; then short work
  // where direct wins again by a little (kept) or by much (direct takes over).
  const auto after_long_phase = [] {
    calibration c(three(), {2, 0.03, 1.5, 1.25, 0.0, 0.0});
    drive(c, {1.0, 1.2, 1.3});
    c.record(0, 2.0);
    c.record(0, 2.0);
    c.record(1, 1.2);  // saves 0.8 ms against direct's 2.0 ...
    c.record(0, 2.0);  // ... which direct's reading after it confirms
    REQUIRE(c.chosen() == 1);
    c.record(1, 0.40);
    c.record(1, 0.40);  // shorter: the check of direct and the challenger follows
    REQUIRE(c.next() == 0);
    return c;
  };
  calibration kept = after_long_phase();
  kept.record(0, 0.37);  // direct wins by 0.03 ms, under 0.8 / 16
  kept.record(kept.next(), 0.5);
  CHECK(kept.chosen() == 1);
  CHECK(kept.report().find("kept after 1 checks that direct won") != std::string::npos);
  calibration back = after_long_phase();
  back.record(0, 0.30);  // direct wins by 0.10 ms, over 0.8 / 16
  back.record(back.next(), 0.5);
  CHECK(back.chosen() == 0);
  CHECK(back.restarts() == 0);
  CHECK(back.report().find("1 returns to direct") != std::string::npos);
  // Without an earlier saving the same loss restarts the calibration, as before.
  calibration plain(three(), {2, 0.03, 1.5, 1.25, 0.0, 0.0});
  drive(plain, {1.0, 0.5, 1.3});
  REQUIRE(plain.chosen() == 1);
  plain.record(1, 0.2);
  plain.record(1, 0.2);
  plain.record(0, 0.19);
  plain.record(plain.next(), 0.5);
  CHECK_FALSE(plain.decided());
}

TEST_CASE("the keep share is a fraction") {
  calibration_settings s;
  s.keep_share = 2;
  CHECK_THROWS_AS(calibration(three(), s), std::invalid_argument);
  s.keep_share = -0.1;
  CHECK_THROWS_AS(calibration(three(), s), std::invalid_argument);
}

TEST_CASE("changing work: the choice follows a long phase and comes back after it") {
  // Scripted per-call times of each candidate: short calls where direct wins, then a long
  // phase where the budgeted strategy (64) wins by 1.5x, then short calls again.
  const auto list = automatic_candidates(false);
  int budgeted = -1;
  for (int i = 0; i < static_cast<int>(list.size()); ++i) {
    if (list[static_cast<std::size_t>(i)].strategy == pool_strategy::budgeted &&
        budget_of(list[static_cast<std::size_t>(i)]) == 64 &&
        list[static_cast<std::size_t>(i)].blocks_per_sm == 0) {
      budgeted = i;
    }
  }
  REQUIRE(budgeted > 0);
  const auto time_of = [&](int call, int i) {
    const bool long_phase = call >= 100 && call < 250;
    if (i == 0) return long_phase ? 0.26 : 0.035;
    if (i == budgeted) return long_phase ? 0.17 : 0.040;
    return long_phase ? 0.30 : 0.070;
  };
  calibration c(list);
  int budgeted_in_long = 0;
  int direct_late = 0;
  for (int call = 0; call < 400; ++call) {
    int ran = 0;
    if (!c.decided()) {
      ran = c.next();
      c.record(ran, time_of(call, ran));
    } else {
      const bool timed = c.next_run_timed();
      ran = timed ? c.next() : c.chosen();
      if (timed) c.record(ran, time_of(call, ran));
    }
    if (call >= 100 && call < 250) budgeted_in_long += ran == budgeted;
    if (call >= 300) direct_late += ran == 0;
  }
  CAPTURE(c.report());
  CHECK(budgeted_in_long >= 100);  // of 150 calls
  CHECK(direct_late >= 90);        // of 100
}

TEST_CASE("step counts of a slice predict the form of the rest") {
  step_counts busy{1000, 1100, 0};  // lanes busy 91%: nothing to rebalance
  CHECK(predict(busy, 32) == predicted_form::direct);
  step_counts tail{3200, 32 * 500, 3};  // 20% busy, 3 of 320 tasks past the budget
  CHECK(predict(tail, 320) == predicted_form::budgeted);
  step_counts long_tasks{320 * 900, 10 * 32 * 1600, 300};  // 56% busy, most past the budget
  CHECK(predict(long_tasks, 320) == predicted_form::pooled);
  step_counts short_tasks{320 * 4, 10 * 32 * 11, 0};  // 36% busy, none past the budget
  CHECK(predict(short_tasks, 320) == predicted_form::ranged);
  step_counts one_past{320 * 4, 10 * 32 * 11, 1};
  CHECK(predict(one_past, 320) == predicted_form::budgeted);
  CHECK(predict(step_counts{}, 0) == predicted_form::direct);
  CHECK(describe(tail, 320) == "10.0 steps a task, lanes busy 20%, 0.9% past 64 steps");
  const auto list = automatic_candidates(false);
  CHECK(list[static_cast<std::size_t>(detail::candidate_for(predicted_form::budgeted, list))]
            .strategy == pool_strategy::budgeted);
  CHECK(list[static_cast<std::size_t>(detail::candidate_for(predicted_form::pooled, list))]
            .strategy == pool_strategy::private_pools);
  CHECK(list[static_cast<std::size_t>(detail::candidate_for(predicted_form::ranged, list))]
            .strategy == pool_strategy::warp_range);
  CHECK(detail::candidate_for(predicted_form::direct, list) == 0);
  CHECK(detail::candidate_for(predicted_form::budgeted, {list.front()}) == 0);
}

TEST_CASE("a predicted choice is checked against direct after its reference run") {
  calibration c(three(), {2, 0.03, 1.5, 1.25, 0.0});
  c.adopt(1, 0, 1, true);
  CHECK(c.next_run_timed());  // its reference, at once
  c.record(1, 0.5);
  CHECK(c.next() == 0);  // then direct, to check it
  CHECK(c.next_run_timed());
  c.record(0, 1.0);  // direct 2x slower: the choice stays
  CHECK(c.decided());
  CHECK(c.chosen() == 1);
  CHECK(c.next() == 1);
  calibration wrong(three(), {2, 0.03, 1.5, 1.25, 0.0});
  wrong.adopt(2, 0, 1, true);
  wrong.record(2, 1.0);
  wrong.record(0, 0.8);  // direct faster: the prediction was wrong, calibrate
  CHECK_FALSE(wrong.decided());
}

TEST_CASE("after a drift a faster challenger takes over from the choice") {
  auto list3 = three();
  list3[2].strategy = pool_strategy::private_pools;  // a runner-up of another strategy
  calibration c(list3, {2, 0.03, 1.5, 1.25, 0.0});
  drive(c, {1.0, 0.5, 0.6});
  REQUIRE(c.chosen() == 1);
  c.record(1, 0.9);
  c.record(1, 0.9);  // drifted
  CHECK(c.next() == 0);
  c.record(0, 1.5);
  CHECK(c.next() == 2);
  c.record(2, 0.6);  // the runner-up now beats both
  CHECK(c.decided());
  CHECK(c.chosen() == 2);
  CHECK(c.settled());
  CHECK(c.report().find("1 switches to a faster challenger") != std::string::npos);
  // A runner-up of the same strategy is no challenger: direct alone checks the choice.
  calibration same(three(), {2, 0.03, 1.5, 1.25, 0.0});
  drive(same, {1.0, 0.5, 0.6});
  same.record(1, 0.9);
  same.record(1, 0.9);
  same.record(0, 1.5);
  CHECK(same.settled());
  CHECK(same.chosen() == 1);
  // Without a runner-up, the budgeted strategy's challenger is private pools.
  const auto list = automatic_candidates(false);
  int budgeted = 0;
  while (list[static_cast<std::size_t>(budgeted)].strategy != pool_strategy::budgeted) ++budgeted;
  calibration p(list, {});
  p.adopt(budgeted, 0, 1, true);
  CHECK_FALSE(p.settled());
  p.record(budgeted, 2.0);
  p.record(0, 3.0);
  const int challenger = p.next();
  CHECK(list[static_cast<std::size_t>(challenger)].strategy == pool_strategy::private_pools);
  p.record(challenger, 1.0);
  CHECK(p.chosen() == challenger);
  CHECK(p.settled());
}
