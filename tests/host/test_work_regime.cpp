// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <doctest/doctest.h>

#include <stdexcept>

#include "microsched/schedule/work_regime.hpp"

using microsched::work_regime;
using microsched::work_regime_settings;

TEST_CASE("a long call sends the next to the long-work candidate while it pays") {
  work_regime r;  // long: at least 4x the reference and 0.2 ms
  const double ref = 0.025;
  CHECK(r.long_ms(ref) == doctest::Approx(0.2));
  CHECK(r.long_ms(0.1) == doctest::Approx(0.4));
  r.direct_ran(0.026, ref);
  CHECK_FALSE(r.next_long());
  CHECK_FALSE(r.in_long());
  r.direct_ran(0.9, ref);  // an animation's first long frame, run direct
  CHECK(r.next_long());
  CHECK(r.in_long());
  CHECK(r.stretches() == 1);
  r.long_ran(0.63, ref);  // faster than direct's 0.9: stays
  CHECK(r.next_long());
  r.long_ran(0.72, ref);
  CHECK(r.next_long());
  r.long_ran(0.05, ref);  // the work got short: direct again
  CHECK_FALSE(r.next_long());
  r.direct_ran(0.03, ref);
  CHECK_FALSE(r.next_long());
  CHECK(r.given_back() == 0);
}

TEST_CASE("a long-work run that does not beat direct gives the stretch back until a short call") {
  work_regime r;
  const double ref = 0.025;
  r.direct_ran(1.32, ref);
  REQUIRE(r.next_long());
  r.long_ran(1.37, ref);  // slower than direct on this work
  CHECK_FALSE(r.next_long());
  CHECK(r.given_back() == 1);
  r.direct_ran(1.33, ref);  // still long: direct keeps it
  CHECK_FALSE(r.next_long());
  r.direct_ran(0.03, ref);  // the stretch ends
  r.direct_ran(0.9, ref);   // a new stretch is tried again
  CHECK(r.next_long());
  CHECK(r.stretches() == 2);
  // Direct's readings are a lower bound: within the margin above them the long-work run stays.
  work_regime m;
  m.direct_ran(1.0, ref);
  m.long_ran(1.02, ref);
  CHECK(m.next_long());
  m.long_ran(1.04, ref);
  CHECK_FALSE(m.next_long());
}

TEST_CASE("short calls below the floor never count as long, whatever the reference") {
  work_regime r;
  r.direct_ran(0.15, 0.01);  // 15x the reference, under 0.2 ms: the events would cost too much
  CHECK_FALSE(r.next_long());
  work_regime loose(work_regime_settings{2.0, 0.0, 0.03});
  loose.direct_ran(0.021, 0.01);
  CHECK(loose.next_long());
}

TEST_CASE("work_regime settings are checked") {
  CHECK_THROWS_AS(work_regime(work_regime_settings{0.5, 0.2, 0.03}), std::invalid_argument);
  CHECK_THROWS_AS(work_regime(work_regime_settings{4.0, -1.0, 0.03}), std::invalid_argument);
  CHECK_THROWS_AS(work_regime(work_regime_settings{4.0, 0.2, 1.0}), std::invalid_argument);
}
