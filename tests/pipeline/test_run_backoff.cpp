// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Back-off across runs (run_backoff.hpp): which runs launch the original loop after losses.
#include <doctest/doctest.h>

#include "microsched/pipeline/run_backoff.hpp"

using microsched::pipeline::run_backoff;

TEST_CASE("run backoff: losses in a row back off 1, 2, 4 runs up to the cap; a gain resets it") {
  run_backoff b(0.05, 4);
  CHECK_FALSE(b.skip_run());
  CHECK(b.reference_ms(32) < 0);  // nothing known yet
  // Torg 0.33 ms x 32 chunks = 10.56 ms: 5.6 ms gains, 10.9 ms is within 5 %.
  CHECK_FALSE(b.pipelined_run(5.6, 0.33, 32));
  CHECK(b.reference_ms(32) == doctest::Approx(10.56));
  CHECK_FALSE(b.pipelined_run(10.9, 0.34, 32));  // the smallest Torg is kept
  CHECK(b.last_reference_ms() == doctest::Approx(10.56));
  CHECK_FALSE(b.skip_run());
  int skipped_after[4] = {};
  for (int loss = 0; loss < 4; ++loss) {
    CHECK(b.pipelined_run(25.0, 0.33, 32));
    while (b.skip_run()) ++skipped_after[loss];
  }
  CHECK(skipped_after[0] == 1);
  CHECK(skipped_after[1] == 2);
  CHECK(skipped_after[2] == 4);
  CHECK(skipped_after[3] == 4);                 // capped
  CHECK_FALSE(b.pipelined_run(6.0, 0.33, 32));  // a gain: the next loss backs off one run again
  CHECK(b.pipelined_run(25.0, 0.33, 32));
  CHECK(b.runs_left() == 1);
}

TEST_CASE(
    "run backoff: a measured original loop is the reference where it is faster than n x Torg") {
  run_backoff b(0.05, 32);
  b.original_run(10.4, 32);  // a run that launched only originals
  CHECK(b.reference_ms(32) == doctest::Approx(10.4));
  CHECK(b.reference_ms(64) == doctest::Approx(20.8));
  // Torg inflated by the helpers' memory traffic (0.4 ms) must not hide a 12 ms loss.
  CHECK(b.pipelined_run(12.0, 0.4, 32));
  CHECK(b.last_reference_ms() == doctest::Approx(10.4));
  run_backoff never(0.05, 0);  // max 0: never backs off
  CHECK_FALSE(never.pipelined_run(100.0, 0.33, 32));
  CHECK_FALSE(never.skip_run());
}

TEST_CASE("run backoff: a run that optimised nothing backs off too, whatever its time") {
  run_backoff b(0.05, 32);
  CHECK(b.pipelined_run(7.4, -1, 200, /*futile=*/true));  // no Torg timed: still backed off
  CHECK(b.last_futile());
  CHECK(b.last_run_ms() == doctest::Approx(7.4));
  CHECK(b.skip_run());
  CHECK_FALSE(b.skip_run());
  CHECK(b.pipelined_run(7.4, 0.054, 200, true));  // 7.4 ms is well under 200 x 0.054 ms
  CHECK(b.runs_left() == 2);
  CHECK_FALSE(run_backoff(0.05, 0).pipelined_run(7.4, 0.054, 200, true));  // never backs off
}

TEST_CASE("run backoff: a run whose control ended off is a loss unless it beat the original") {
  run_backoff b(0.05, 32);
  CHECK_FALSE(b.pipelined_run(6.0, 0.33, 32));  // Torg 0.33: the estimate is 10.56 ms
  // 2 % over the estimate: within the tolerance while the control is on, a loss once it is off
  // (what the run paid before the switch would be paid again in every run).
  CHECK_FALSE(b.pipelined_run(10.77, 0.33, 32));
  CHECK(b.pipelined_run(10.77, 0.33, 32, false, /*ended_off=*/true));
  CHECK(b.runs_left() == 1);
  while (b.skip_run()) {
  }
  CHECK_FALSE(b.pipelined_run(9.0, 0.33, 32, false, true));  // it gained before it went off
}
