// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Following short-call work call by call on scripted signals: a long call whose steps predict
// the budgeted strategy sends the next call there, a short one brings direct back, checks that
// lose stop it, long calls it does not take ask for a calibration; the signal's slots read as
// complete only when every one carries the run's tag.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "microsched/schedule/call_signal.hpp"
#include "microsched/schedule/work_follower.hpp"

using namespace microsched;

namespace {
//! A direct call of `ms` over 1024 tasks: `over` of them past the budget, lanes busy `busy`.
call_signal direct_call(double ms, unsigned long long over, double busy = 0.3) {
  call_signal s;
  s.complete = true;
  s.counted = true;
  s.tasks = 1024;
  s.counts.steps = 100000;
  s.counts.warp_slowest = static_cast<unsigned long long>(100000 / busy);
  s.counts.over_budget = over;
  s.ms = ms;
  return s;
}
}  // namespace

TEST_CASE("a long call with few long tasks sends the next call to the budgeted strategy") {
  work_follower f;
  CHECK_FALSE(f.budgeted_next());
  f.on_direct(direct_call(0.03, 10));  // short: direct stays
  CHECK_FALSE(f.budgeted_next());
  f.on_direct(direct_call(0.9, 40));  // long, 4% past the budget
  CHECK(f.budgeted_next());
  f.on_budgeted(0.6);  // beats direct's 0.9: a win, still long
  CHECK(f.budgeted_next());
  CHECK(f.wins() == 1);
  f.on_budgeted(0.05);  // short again: direct's signal leads
  CHECK_FALSE(f.budgeted_next());
  CHECK(f.followed() == 2);
  CHECK_FALSE(f.wants_calibration());
}

TEST_CASE("busy lanes, or no task past the budget, are not followed") {
  work_follower f;
  f.on_direct(direct_call(0.9, 40, 0.9));  // lanes busy 90%: nothing to rebalance
  CHECK_FALSE(f.budgeted_next());
  work_follower g;
  g.on_direct(direct_call(0.9, 0));  // no task past the budget: the pass would do it all
  CHECK_FALSE(g.budgeted_next());
}

TEST_CASE("a long call after short ones is followed on its time; after it, steps are counted") {
  work_follower f;
  CHECK_FALSE(f.count_next());
  call_signal uncounted = direct_call(0.9, 0, 0.95);
  uncounted.counted = false;
  uncounted.counts = {};
  f.on_direct(uncounted);
  CHECK(f.budgeted_next());  // its form is unknown: the budgeted call's time tells
  CHECK(f.count_next());
  f.on_budgeted(1.3);  // other work than the signal's
  CHECK_FALSE(f.budgeted_next());
  CHECK(f.count_next());                    // the last call was long: direct counts
  f.on_direct(direct_call(1.0, 40, 0.95));  // counted: busy lanes, not followed
  CHECK_FALSE(f.budgeted_next());
  f.on_direct(direct_call(0.03, 0));
  CHECK_FALSE(f.count_next());
}

TEST_CASE("an incomplete signal changes nothing") {
  work_follower f;
  call_signal s = direct_call(0.9, 40);
  s.complete = false;
  f.on_direct(s);
  CHECK_FALSE(f.budgeted_next());
}

TEST_CASE("long calls it does not follow ask for a calibration") {
  follow_settings settings;
  settings.long_runs_to_calibrate = 2;
  work_follower f(settings);
  f.on_direct(direct_call(0.9, 40, 0.95));
  CHECK_FALSE(f.wants_calibration());
  f.on_direct(direct_call(0.03, 40, 0.95));  // a short call between resets the count
  f.on_direct(direct_call(0.9, 40, 0.95));
  CHECK_FALSE(f.wants_calibration());
  f.on_direct(direct_call(0.9, 40, 0.95));
  CHECK(f.wants_calibration());
}

TEST_CASE("a check that direct wins holds direct for the stretch; losses stop the following") {
  follow_settings settings;
  settings.check_every = 2;
  settings.losses_allowed = 2;
  work_follower f(settings);
  f.on_direct(direct_call(1.0, 40));
  REQUIRE(f.budgeted_next());
  f.on_budgeted(1.2);  // loses to direct's 1.0: a loss
  CHECK(f.losses() == 1);
  CHECK(f.budgeted_next());
  f.on_budgeted(1.2);  // the second in a row: direct's check comes next
  CHECK_FALSE(f.budgeted_next());
  f.on_direct(direct_call(1.0, 40));  // direct wins the check: a loss, and direct holds
  CHECK(f.losses() == 2);
  CHECK(f.stopped());
  CHECK_FALSE(f.budgeted_next());
  f.on_direct(direct_call(0.03, 40));
  f.on_direct(direct_call(1.0, 40));  // stopped: never again
  CHECK_FALSE(f.budgeted_next());
}

TEST_CASE("a check that lands on short work scores nothing") {
  follow_settings settings;
  settings.check_every = 1;
  work_follower f(settings);
  f.on_direct(direct_call(1.0, 40));
  f.on_budgeted(0.6);                  // a win
  REQUIRE_FALSE(f.budgeted_next());    // the check
  f.on_direct(direct_call(0.03, 40));  // the work turned short: no loss for the budgeted form
  CHECK(f.wins() == 1);
  CHECK(f.losses() == 0);
  f.on_direct(direct_call(1.0, 40));  // long again, not held: followed
  CHECK(f.budgeted_next());
}

TEST_CASE("a check the budgeted strategy wins keeps following") {
  follow_settings settings;
  settings.check_every = 1;
  work_follower f(settings);
  f.on_direct(direct_call(1.0, 40));
  f.on_budgeted(0.6);
  CHECK_FALSE(f.budgeted_next());     // the check
  f.on_direct(direct_call(1.0, 40));  // direct slower than the budgeted 0.6: a win
  CHECK(f.wins() == 2);
  CHECK(f.budgeted_next());
}

TEST_CASE("a budgeted call whose time jumps hands the next call to direct, which reads the work") {
  work_follower f;
  f.on_direct(direct_call(0.15, 40));
  REQUIRE(f.budgeted_next());
  f.on_budgeted(1.3);  // far longer than direct's 0.15: other work, no score
  CHECK_FALSE(f.budgeted_next());
  CHECK(f.wins() + f.losses() == 0);
  f.on_direct(direct_call(1.0, 40));
  REQUIRE(f.budgeted_next());
  f.on_budgeted(0.7);
  CHECK(f.budgeted_next());
  f.on_budgeted(0.4);  // off the 0.7 before it by more than 1.25x
  CHECK_FALSE(f.budgeted_next());
}

TEST_CASE("after many short calls only every few direct calls leave a signal") {
  follow_settings settings;
  settings.quiet_after = 3;
  settings.quiet_every = 2;
  work_follower f(settings);
  for (int i = 0; i < 3; ++i) {
    CHECK(f.signal_next());
    f.on_direct(direct_call(0.03, 0));
  }
  CHECK_FALSE(f.signal_next());
  CHECK(f.signal_next());
  f.on_direct(direct_call(0.9, 40));  // a long call: every call signals again
  CHECK(f.signal_next());
  CHECK(f.signal_next());
}

TEST_CASE("follow settings out of range are refused") {
  using change = void (*)(follow_settings&);
  const change out_of_range[] = {
      [](follow_settings& s) { s.budgeted_from_ms = 0; }, [](follow_settings& s) { s.margin = 1; },
      [](follow_settings& s) { s.check_every = 0; },      [](follow_settings& s) { s.changed = 1; },
      [](follow_settings& s) { s.quiet_every = 0; },
  };
  for (const change c : out_of_range) {
    follow_settings bad;
    c(bad);
    CHECK_THROWS_AS(work_follower{bad}, std::invalid_argument);
  }
}

TEST_CASE("a signal's layout samples at most 64 blocks and a quarter of the grid") {
  const signal_layout small = layout_signal(10, 256, 2500);
  CHECK(small.shift == 2);
  CHECK(small.slots == 3);  // blocks 0, 4 and 8
  CHECK(small.sampled_tasks == 3 * 256);
  const signal_layout large = layout_signal(16384, 256, 16384ull * 256);
  CHECK(large.slots == 64);
  CHECK(large.shift == 8);
  CHECK(large.sampled_tasks == 64ull * 256);
  const signal_layout odd = layout_signal(65, 256, 64ull * 256 + 1);  // the last block holds 1
  CHECK(odd.shift == 2);
  CHECK(odd.slots == 17);
  CHECK(odd.sampled_tasks == 16ull * 256 + 1);
  CHECK(layout_signal(0, 256, 0).slots == 0);
  CHECK(layout_signal(1, 256, 1).sampled_tasks == 1);
}

TEST_CASE("a signal is complete only when both halves of every slot carry the run's tag") {
  const signal_layout layout = layout_signal(9, 256, 9 * 256);
  REQUIRE(layout.slots == 3);
  std::vector<signal_slot> slots(3);
  for (std::uint32_t s = 0; s < 3; ++s) {
    // counts: tag, over, steps, warp maxima; clock: tag, start (low, high), elapsed
    slots[s] = {7, 2, 100, 10, 7, 1000 + s * 10, 1, 1000 + s * 500};
  }
  slots[2].clock_tag = 6;  // its clock still from the run before
  CHECK_FALSE(read_signal(slots.data(), layout, 7).complete);
  slots[2].clock_tag = 7;
  slots[1].tag = 6;
  CHECK_FALSE(read_signal(slots.data(), layout, 7).complete);
  slots[1].tag = 7;
  const call_signal s = read_signal(slots.data(), layout, 7);
  REQUIRE(s.complete);
  CHECK(s.counts.steps == 300);
  CHECK(s.counts.warp_slowest == 32 * 30);
  CHECK(s.counts.over_budget == 6);
  CHECK(s.tasks == 3 * 256);
  // starts at 2^32 + 1000, ..., the last ends at 2^32 + 1020 + 2000
  CHECK(s.ms == doctest::Approx((1020 + 2000 - 1000) * 1e-6));
}
