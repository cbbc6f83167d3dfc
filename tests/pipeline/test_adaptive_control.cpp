// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The adaptive control of zhang2011 §5.4, driven by scripted timings.
#include <doctest/doctest.h>

#include <stdexcept>

#include "microsched/pipeline/adaptive_control.hpp"

using namespace microsched::pipeline;
using phase = adaptive_controller::phase;

TEST_CASE("profiling estimates r' = r0 * Torg / (Ttr + Tsav)") {
  adaptive_controller c;
  CHECK(c.state() == phase::profiling);
  CHECK(c.ratio() == doctest::Approx(0.1));
  c.original_kernel(10.0);                // Torg
  c.transformation(0.1, true, 2.0, 9.0);  // Ttr = 2, Topt = 9 -> Tsav = 1
  CHECK(c.state() == phase::adjusting);
  CHECK(c.ratio() == doctest::Approx(0.1 * 10.0 / (2.0 + 1.0)));
}

TEST_CASE("the estimate is clamped to 1") {
  adaptive_controller c;
  c.original_kernel(10.0);
  c.transformation(0.1, true, 0.1, 9.5);
  CHECK(c.ratio() == doctest::Approx(1.0));
}

TEST_CASE("a first transformation slower than the kernel shuts the control off") {
  adaptive_controller c;
  c.original_kernel(1.0);
  c.transformation(0.1, false, 5.0, 0);
  CHECK_FALSE(c.enabled());
  CHECK(c.reason().find("did not finish") != std::string::npos);
}

TEST_CASE("no saving (nothing to gain) shuts the control off") {
  adaptive_controller c;
  c.original_kernel(1.0);
  c.transformation(0.1, true, 0.2, 1.01);
  CHECK_FALSE(c.enabled());
  CHECK(c.reason().find("no gain") != std::string::npos);
}

TEST_CASE("r rises only after two consecutive successes, while it never fell") {
  adaptive_controller c;
  c.original_kernel(10.0);
  c.transformation(0.1, true, 2.0, 8.0);  // r' = 0.1*10/(2+2) = 0.25
  REQUIRE(c.ratio() == doctest::Approx(0.25));
  c.transformation(0.1, true, 1.0, 8.0);
  CHECK(c.ratio() == doctest::Approx(0.25));  // one success: the lagging one, no change
  c.transformation(0.25, true, 1.0, 8.0);
  CHECK(c.ratio() == doctest::Approx(0.35));  // second success: up a step
  c.transformation(0.35, true, 1.0, 8.0);
  c.transformation(0.35, true, 1.0, 8.0);
  CHECK(c.ratio() == doctest::Approx(0.45));
  c.transformation(0.45, false, 12.0, 0);  // failure: down a step, never up again
  CHECK(c.ratio() == doctest::Approx(0.35));
  CHECK(c.state() == phase::adjusting);
  c.transformation(0.35, true, 1.0, 8.0);
  c.transformation(0.35, true, 1.0, 8.0);  // two successes after a decrease: settled
  CHECK(c.state() == phase::settled);
  CHECK(c.ratio() == doctest::Approx(0.35));
  c.transformation(0.35, false, 12.0, 0);  // settled: r stays
  CHECK(c.ratio() == doctest::Approx(0.35));
}

TEST_CASE("failures at the smallest ratio raise s to 5, then shut down") {
  adaptive_arguments args;
  args.min_ratio = 0.1;
  adaptive_controller c(args);
  c.original_kernel(10.0);
  c.transformation(0.1, true, 9.0, 9.5);  // r' = 0.1*10/(9+0.5) ~ 0.105
  REQUIRE(c.state() == phase::adjusting);
  c.transformation(0.105, false, 11.0, 0);
  CHECK(c.ratio() == doctest::Approx(0.1));
  CHECK(c.segments() == 1);
  c.transformation(0.1, false, 11.0, 0);
  CHECK(c.segments() == 5);
  CHECK(c.enabled());
  c.transformation(0.1, false, 11.0, 0);
  CHECK_FALSE(c.enabled());
}

TEST_CASE("adaptive arguments are validated by name") {
  adaptive_arguments args;
  args.ratio_step = 0;
  CHECK_THROWS_WITH_AS(adaptive_controller{args}, doctest::Contains("ratio_step"),
                       std::invalid_argument);
  args = {};
  args.min_ratio = 0.5;
  CHECK_THROWS_WITH_AS(adaptive_controller{args}, doctest::Contains("initial_ratio"),
                       std::invalid_argument);
}

TEST_CASE("with depth 2 a transformation may take two kernel times: r' = r0*2*Torg/(Ttr+2*Tsav)") {
  adaptive_controller c({}, 2);
  c.original_kernel(10.0);
  c.transformation(0.1, true, 2.0, 9.0);
  CHECK(c.ratio() == doctest::Approx(0.1 * 2 * 10.0 / (2.0 + 2 * 1.0)));
}

TEST_CASE("the loss guard sums whole-iteration losses and switches off once past the tolerance") {
  adaptive_arguments a;
  a.loss_window = 4;
  a.loss_tolerance = 0.02;
  a.loss_patience = 1;  // off at the first excess
  adaptive_controller c(a);
  c.original_kernel(1.0);
  c.original_kernel(1.0);
  // Allowed loss: 0.02 * 1 ms * max(k, 4) = 0.08 ms for the first four iterations.
  for (int k = 0; k < 3; ++k) c.iteration_time(1.02);  // 0.06 ms behind
  CHECK(c.enabled());
  CHECK(c.loss_ms() == doctest::Approx(0.06));
  c.iteration_time(1.03);  // 0.09 > 0.08
  CHECK_FALSE(c.enabled());
  CHECK(c.reason().find("loss guard") != std::string::npos);
  c.iteration_time(0.1);  // off: no more judgement
  CHECK(c.loss_ms() == doctest::Approx(0.09));
}

TEST_CASE("the loss guard forgives a late iteration that the next ones make up") {
  adaptive_arguments a;  // defaults: window 8, tolerance 2 %, patience 3
  adaptive_controller c(a);
  c.original_kernel(0.33);
  // A first pipelined iteration 0.45 ms late is set aside (one noisy sample); a second one 0.2 ms
  // late counts, and an optimised chunk 0.3 ms shorter (unwrap) makes it up.
  c.iteration_time(0.33 + 0.45);
  CHECK(c.enabled());
  CHECK(c.set_aside_ms() == doctest::Approx(0.45));
  CHECK(c.loss_ms() == doctest::Approx(0.0));
  c.iteration_time(0.33 + 0.2);
  CHECK(c.enabled());  // 0.2 ms behind: over the 0.0528 ms allowance once
  c.iteration_time(0.03);
  CHECK(c.enabled());
  CHECK(c.loss_ms() == doctest::Approx(-0.1));
  // The second late iteration not made up: off after the third iteration in a row over.
  adaptive_controller d(a);
  d.original_kernel(0.33);
  d.iteration_time(0.33 + 0.45);
  d.iteration_time(0.33 + 0.2);
  d.iteration_time(0.33);
  CHECK(d.enabled());
  d.iteration_time(0.33);
  CHECK_FALSE(d.enabled());
  CHECK(d.reason().find("3 iterations in a row") != std::string::npos);
  CHECK(d.reason().find("set aside") != std::string::npos);
}

TEST_CASE("Torg is the mean of the warm originals: the first (cold) one only until another") {
  adaptive_arguments a;  // window 8, tolerance 2 %, patience 3
  adaptive_controller c(a);
  c.original_kernel(0.26);  // the first original measured short
  CHECK(c.original_mean_ms() == doctest::Approx(0.26));
  c.iteration_time(0.30);
  c.iteration_time(0.30);  // 0.08 ms behind a Torg of 0.26: over the 0.0416 ms allowance once
  CHECK(c.enabled());
  for (int k = 0; k < 5; ++k) c.original_kernel(0.30);
  CHECK(c.original_mean_ms() == doctest::Approx(0.30));  // the first is no longer the reference
  c.iteration_time(0.30);                                // three steps against 0.30: nothing lost
  CHECK(c.enabled());
  CHECK(c.loss_ms() == doctest::Approx(0.0));
  CHECK(c.set_aside_ms() == 0);
}

TEST_CASE(
    "a cold first original, long or short, is not the reference of the verdict or the guard") {
  for (const double cold : {1.0, 0.1}) {  // 3x the warm 0.33 ms, or a third of it
    CAPTURE(cold);
    adaptive_controller c({}, 3, remap_scope::whole_chunk);
    c.original_kernel(cold);
    c.original_kernel(0.33);
    c.transformation(1.0, true, 0.3, 0.03);  // Tsav = 0.30 against the warm Torg
    REQUIRE(c.state() == phase::adjusting);
    CHECK(c.ratio() == doctest::Approx(0.33 / (0.3 + 0.30)));
    // A share of the chunks run original (0.33 ms, their times join Torg), the others optimised:
    // the loop gains and the guard says so whatever the first kernel took.
    for (int k = 0; k < 16; ++k) {
      if (k % 2 == 0) {
        c.original_kernel(0.33);
        c.iteration_time(0.33);
      } else {
        c.iteration_time(0.05);
      }
    }
    CHECK(c.enabled());
    CHECK(c.loss_ms() < 0);
    CHECK(c.set_aside_ms() == 0);
  }
}

TEST_CASE("the loss guard sets one long stall aside and stops at the second, before a window") {
  adaptive_arguments a;  // defaults: window 8, tolerance 2 %: 0.16 Torg allowed at the start
  adaptive_controller c(a);
  c.original_kernel(0.33);
  c.iteration_time(0.33);
  c.iteration_time(0.33 + 1.1);  // one thread lost its core for a scheduler slice
  CHECK(c.enabled());
  CHECK(c.set_aside_ms() == doctest::Approx(1.1));
  c.iteration_time(0.33);
  CHECK(c.enabled());
  // A second stall, more than patience (3) iterations past the allowance: no waiting.
  c.iteration_time(0.33 + 1.1);
  CHECK_FALSE(c.enabled());
  CHECK(c.reason().find("plus 3 iterations") != std::string::npos);
  CHECK(c.reason().find("one step 1.1 ms late set aside") != std::string::npos);
  adaptive_arguments once = a;
  once.loss_patience = 1;  // no patience: a second 0.06 ms gap already ends it
  adaptive_controller d(once);
  d.original_kernel(0.33);
  d.iteration_time(0.33 + 0.06);
  CHECK(d.enabled());
  d.iteration_time(0.33 + 0.06);
  CHECK_FALSE(d.enabled());
}

TEST_CASE("a loop that truly cannot keep up still switches off within a bounded number of steps") {
  adaptive_arguments a;  // window 8, tolerance 2 %, patience 3
  // Steps until the control switches off when every step takes `late` x the original kernel.
  const auto steps_until_off = [&a](double late, double* set_aside = nullptr) {
    adaptive_controller c(a);
    c.original_kernel(0.33);
    int steps = 0;
    while (c.enabled() && steps < 100) {
      c.iteration_time(0.33 * late);
      ++steps;
    }
    if (set_aside != nullptr) *set_aside = c.set_aside_ms();
    return steps;
  };
  // Every step stalls: the first is set aside, the second switches off.
  CHECK(steps_until_off(5.0) == 2);
  // Every step 20 % late (0.066 ms, over the 0.0528 ms allowance alone): the first is set aside,
  // then three judged steps in a row over it.
  CHECK(steps_until_off(1.2) == 1 + a.loss_patience);
  // Every step 5 % late (under the allowance alone: nothing set aside): off once the loss passes
  // the tolerance, 0.0165 * k > 0.0066 * max(k, 8) from k = 4, three in a row.
  double set_aside = -1;
  CHECK(steps_until_off(1.05, &set_aside) == 6);
  CHECK(set_aside == 0);
  {
    // Whole chunks whose remap misses every profile: off after profile_attempts profiled chunks.
    adaptive_controller c(a, 2, remap_scope::whole_chunk);
    c.original_kernel(0.33);
    c.original_kernel(0.33);
    int profiles = 0;
    while (c.enabled() && profiles < 100) {
      c.transformation(1.0, false, 2.0, 0);
      ++profiles;
    }
    CHECK(profiles == a.profile_attempts);
  }
}

TEST_CASE("a workload with nothing to gain still switches off at profiling, noisy originals too") {
  for (const remap_scope scope : {remap_scope::partial, remap_scope::whole_chunk}) {
    adaptive_controller c({}, 1, scope);
    c.original_kernel(0.9);  // a cold first kernel: Torg is 1.0 all the same
    c.original_kernel(1.0);
    c.original_kernel(1.0);
    c.transformation(c.ratio(), true, 0.2, 1.0);
    CHECK_FALSE(c.enabled());
    CHECK(c.reason().find("no gain (original 1 ms") != std::string::npos);
  }
}

TEST_CASE("a single 3x-inflated profile followed by normal ones keeps the transformation on") {
  // unwrap-like: Torg 0.33 ms, Ttr 0.3 ms on every helper, Topt 0.03 ms; Δ = 2 kernel times.
  adaptive_controller c({}, 2, remap_scope::whole_chunk);
  c.original_kernel(0.33);
  c.original_kernel(0.33);
  c.transformation(1.0, false, 0.9, 0);  // a helper lost its core: 0.9 ms, past the window
  CHECK(c.state() == phase::profiling);
  c.transformation(1.0, true, 0.3, 0.03);  // the next profiled chunk is ready
  REQUIRE(c.state() == phase::adjusting);
  CHECK(c.ratio() == doctest::Approx(0.33 / (0.3 + 0.30)));
  // Normal iterations, one of them stalled by the same kind of noise: still on.
  for (int k = 0; k < 12; ++k) {
    if (k % 2 == 0) c.original_kernel(0.33);
    c.iteration_time(k == 3 ? 0.33 * 4 : (k % 2 == 0 ? 0.33 : 0.05));
    if (k % 2 == 1) c.transformation(c.ratio(), true, 0.3, 0.03);
  }
  CHECK(c.enabled());
  CHECK(c.loss_ms() < 0);
}

TEST_CASE("the loss guard keeps a pipeline that pays: gains are credits") {
  adaptive_arguments a;
  a.loss_window = 4;
  adaptive_controller c(a);
  for (int k = 0; k < 8; ++k) c.iteration_time(9.0);  // no Torg yet: no judgement
  CHECK(c.enabled());
  CHECK(c.loss_ms() == 0);
  c.original_kernel(5.0);  // cold: not Torg once a warm one is known
  c.original_kernel(1.0);
  c.original_kernel(3.0);                             // mean Torg = 2
  for (int k = 0; k < 4; ++k) c.iteration_time(1.5);  // 2 ms ahead
  c.iteration_time(3.3);  // one slow iteration, over the allowance alone: set aside
  CHECK(c.enabled());
  CHECK(c.set_aside_ms() == doctest::Approx(1.3));
  // A short step and a long one that make up for it: nothing lost, nothing gained.
  c.iteration_time(0.1);
  c.iteration_time(3.9);
  CHECK(c.enabled());
  CHECK(c.loss_ms() == doctest::Approx(-2.0));
  // A steady 5 % loss from here: 0.1 ms per iteration; allowed 0.04 * k ms for k >= 4.
  int k = 7;
  while (c.enabled() && k < 100) {
    c.iteration_time(2.1);
    ++k;
  }
  CHECK_FALSE(c.enabled());
  // -2.0 + 0.1 * (k - 7) > 0.04 * k first at k = 46, then patience: 3 in a row.
  CHECK(k == 48);
}

TEST_CASE(
    "an all-or-nothing profile that misses gets profile_attempts tries; a partial one gets one") {
  adaptive_arguments a;
  a.profile_attempts = 2;  // the default, stated: what the test counts on
  adaptive_controller c(a, 3, remap_scope::whole_chunk);
  c.original_kernel(0.33);
  c.transformation(1.0, false, 1.06, 0);  // one remap that lost its core for a time slice
  CHECK(c.state() == phase::profiling);
  CHECK(c.profile_misses() == 1);
  c.transformation(1.0, true, 0.29, 0.01);  // the next profiled chunk is ready
  CHECK(c.state() == phase::adjusting);
  CHECK(c.ratio() == doctest::Approx(0.33 / (0.29 + 0.32)));
  adaptive_controller d(a, 3, remap_scope::whole_chunk);
  d.original_kernel(0.33);
  d.transformation(1.0, false, 1.06, 0);
  d.transformation(1.0, false, 0.95, 0);
  CHECK_FALSE(d.enabled());
  CHECK(d.reason().find("2 profiled chunks missed") != std::string::npos);
  adaptive_arguments partial;  // Black-Scholes: off at the first miss
  adaptive_controller e(partial);
  e.original_kernel(0.043);
  e.transformation(0.1, false, 0.05, 0);
  CHECK_FALSE(e.enabled());
  adaptive_arguments none = a;
  none.profile_attempts = 0;
  CHECK_THROWS_WITH_AS(adaptive_controller{none}, doctest::Contains("profile_attempts"),
                       std::invalid_argument);
}

TEST_CASE(
    "an all-or-nothing method profiles at r = 1, then r is a chunk share; no guard without "
    "adaptation") {
  adaptive_arguments a;
  {
    // Helpers faster than the GPU's step: every chunk (r' = 1 * 1.0 / (0.05 + 0.9) > 1, clamped),
    // whatever the depth (Ttr was measured with every helper on the chunk).
    adaptive_controller c(a, 3, remap_scope::whole_chunk);
    CHECK(c.ratio() == doctest::Approx(1.0));
    c.original_kernel(1.0);
    c.transformation(1.0, true, 0.05, 0.1);
    CHECK(c.state() == phase::adjusting);
    CHECK(c.ratio() == doctest::Approx(1.0));
    c.transformation(1.0, true, 0.05, 0.1);
    c.transformation(1.0, true, 0.05, 0.1);
    CHECK(c.state() == phase::settled);
    c.transformation(1.0, false, 3.0, 0);  // settled: failures change nothing
    CHECK(c.enabled());
    CHECK(c.ratio() == doctest::Approx(1.0));
  }
  {
    // Helpers slower: r' = Torg / (Ttr + Tsav) = 1.0 / (0.5 + 0.9), not × Δ; then Figure 8.
    adaptive_controller c(a, 3, remap_scope::whole_chunk);
    c.original_kernel(1.0);
    c.transformation(1.0, true, 0.5, 0.1);
    CHECK(c.state() == phase::adjusting);
    CHECK(c.ratio() == doctest::Approx(1.0 / 1.4));
    c.transformation(c.ratio(), false, 0.9, 0);  // a selected chunk not ready: one step down
    CHECK(c.ratio() == doctest::Approx(1.0 / 1.4 - 0.1));
    c.transformation(c.ratio(), true, 0.5, 0.1);
    c.transformation(c.ratio(), true, 0.5, 0.1);  // two successes after a decrease: settled
    CHECK(c.state() == phase::settled);
    CHECK(c.ratio() == doctest::Approx(1.0 / 1.4 - 0.1));
  }

  adaptive_arguments bad;
  bad.loss_window = -1;
  CHECK_THROWS_WITH_AS(adaptive_controller{bad}, doctest::Contains("loss_window"),
                       std::invalid_argument);
  adaptive_arguments impatient;
  impatient.loss_patience = 0;
  CHECK_THROWS_WITH_AS(adaptive_controller{impatient}, doctest::Contains("loss_patience"),
                       std::invalid_argument);
}

TEST_CASE("a model forecast decides at the first original kernel, before any remap is paid") {
  adaptive_arguments none_to_gain;
  none_to_gain.predicted_speedup = 1.003;  // saves 0.3% of Torg, below min_gain (0.5%)
  adaptive_controller off(none_to_gain);
  CHECK(off.enabled());  // nothing known yet
  off.original_kernel(2.0);
  CHECK_FALSE(off.enabled());
  CHECK(off.reason().find("model predicts") != std::string::npos);

  adaptive_arguments pays;
  pays.predicted_speedup = 1.8;
  adaptive_controller on(pays);
  on.original_kernel(2.0);
  CHECK(on.state() == phase::profiling);  // profiling goes on as without a forecast
  on.transformation(0.1, true, 0.5, 1.2);
  CHECK(on.state() == phase::adjusting);

  adaptive_arguments bad;
  bad.predicted_speedup = -1;
  CHECK_THROWS_WITH_AS(adaptive_controller{bad}, doctest::Contains("predicted_speedup"),
                       std::invalid_argument);
}
