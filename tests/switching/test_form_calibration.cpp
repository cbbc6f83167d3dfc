// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The automatic switching schedule's rounds (form_calibration.hpp) on scripted times: a fresh
// choice, forms far behind timed once, the finalists' band from the timing noise, the finalists
// alone deciding, a cached direct form kept, a cached switching form kept or chosen again, forms
// that cannot run, and no form that can; a decided choice whose time drifts checked against its
// rival, and drift below the floor ignored.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "microsched/switching/form_calibration.hpp"
#include "microsched/switching/form_report.hpp"

using namespace microsched;
using namespace microsched::switching;

namespace {

//! Runs `c` until it decides, each timed run taking `ms(form, run)` on `tasks(run)` tasks (1
//! unless given); returns the forms timed.
std::vector<int> run_to_choice(form_calibration& c, const std::function<double(int, int)>& ms,
                               const branch_form_options& o = {},
                               const std::function<std::uint64_t(int)>& tasks = {}) {
  std::vector<int> timed;
  for (int run = 0; c.chosen < 0; ++run) {
    REQUIRE(run < 1000);
    if (c.round_done()) {
      (void)c.next_round(o);
      continue;
    }
    const int form = c.take();
    REQUIRE(form >= 0);
    timed.push_back(form);
    c.record(form, ms(form, run), tasks ? tasks(run) : 1);
    if (c.round_done()) (void)c.next_round(o);
  }
  return timed;
}

//! The plain program's list: direct, strided, then two switching schedules.
std::vector<branch_form> plain_forms() {
  return branch_forms(false, {}, {});
}

}  // namespace

TEST_CASE("a fresh choice: every form twice, the finalists three times more, the fastest kept") {
  form_calibration c(plain_forms());
  // direct 1.0, strided 1.3 (not a finalist), switching 0.5 and 0.52. Each form is its
  // schedule's first run, so each runs again, however far behind.
  const std::vector<double> base{1.0, 1.3, 0.5, 0.52};
  const auto timed =
      run_to_choice(c, [&](int f, int) { return base[static_cast<std::size_t>(f)]; });
  CHECK(std::vector<int>(timed.begin(), timed.begin() + 8) ==
        std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3});
  CHECK(timed.size() == 8 + 3 * 3);  // round one, then 3 finalists (0, 2, 3) three times
  CHECK(c.chosen == 2);
  CHECK(c.runs == static_cast<int>(timed.size()));
  CHECK(c.first_ms[1] == 1.3);
  CHECK(c.best_ms[1] < 0);  // not a finalist: not compared in round two
  CHECK(c.cache_text() == "w0 o-1 vs w0 o-1 direct");
  CHECK_FALSE(c.from_cache);
}

TEST_CASE("long runs: a form far behind is timed once, the finalists' band follows the noise") {
  // The windowed program's list: direct and strided at windows 16, 64 and 256, then two
  // switching schedules at windows 16 and 32 (ten forms).
  const auto forms = branch_forms(true, {}, {});
  REQUIRE(forms.size() == 10);
  const branch_form_options o;
  SUBCASE("switching twice as fast: the direct forms past drop_factor run once, but the first") {
    form_calibration c(forms);
    // direct and strided 57, 24 and 24 ms; switching 12.9, 13.0, 12.8, 12.9.
    const std::vector<double> base{57, 57.1, 24.4, 24.5, 24.0, 24.2, 12.9, 13.0, 12.8, 12.9};
    const auto timed = run_to_choice(
        c, [&](int f, int) { return base[static_cast<std::size_t>(f)]; }, o);
    for (int f = 0; f < 6; ++f) {
      CAPTURE(f);
      // Direct and strided at window 16 are their schedules' first runs: timed again.
      const int round_one = f < 2 ? 2 : 1;
      CHECK(std::count(timed.begin(), timed.end(), f) == round_one + (f == 4 ? o.final_runs : 0));
    }
    CHECK(std::count(timed.begin(), timed.end(), 8) == 2 + o.final_runs);
    CHECK(c.chosen == 8);
    CHECK(c.band == doctest::Approx(2 * o.margin));  // steady runs: the band's floor
  }
  SUBCASE("steady runs: a switching form 7% behind is no finalist") {
    form_calibration c(forms);
    const std::vector<double> base{729.6, 730.7, 729.4, 730.4, 729.4,
                                   730.9, 779.1, 790.2, 779.4, 789.2};
    const auto timed = run_to_choice(
        c, [&](int f, int run) { return base[static_cast<std::size_t>(f)] + 0.01 * (run % 3); }, o);
    CHECK(timed.size() == 10 + 10 + 6 * 3);  // every form twice, the six direct forms 3 times
    CHECK(c.forms[static_cast<std::size_t>(c.chosen)].direct());
    CHECK(c.best_ms[6] < 0);
    CHECK(c.first_ms[6] == doctest::Approx(779.1).epsilon(1e-3));
    // keep_within caps the band, below twice the margin too.
    branch_form_options narrow;
    narrow.keep_within = 0.01;
    form_calibration d(forms);
    (void)run_to_choice(
        d, [&](int f, int run) { return base[static_cast<std::size_t>(f)] + 0.01 * (run % 3); },
        narrow);
    CHECK(d.band == doctest::Approx(0.01));
  }
  SUBCASE("noisy runs: the band widens with the noise, up to keep_within") {
    form_calibration c(forms);
    // Short runs whose two readings differ by 10%: the band is keep_within (15%), and a form
    // 12% behind stays a finalist.
    const std::vector<double> base{0.60, 0.80, 0.672, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80};
    (void)run_to_choice(
        c,
        [&](int f, int run) { return base[static_cast<std::size_t>(f)] * (run < 10 ? 1.1 : 1.0); },
        o);
    CHECK(c.band == doctest::Approx(o.keep_within));
    CHECK(c.best_ms[2] >= 0);  // a finalist
    CHECK(c.best_ms[1] < 0);   // 33% behind: not
  }
}

TEST_CASE("round two compares the finalists only, never a form's round-one time") {
  form_calibration c(plain_forms());
  // Calls get heavier: round one is light, round two heavy. Strided is not a finalist; its light
  // round-one time must not beat the finalists' heavy medians.
  const auto ms = [](int f, int run) {
    const double heavy = run >= 8 ? 2.0 : 1.0;
    const std::vector<double> base{1.0, 1.2, 2.0, 2.0};
    return base[static_cast<std::size_t>(f)] * heavy;
  };
  (void)run_to_choice(c, ms);
  CHECK(c.chosen == 0);  // direct, the only finalist
}

TEST_CASE("a switching form within the margin of direct loses to direct") {
  form_calibration c(plain_forms());
  const std::vector<double> base{1.0, 1.01, 0.99, 1.2};
  (void)run_to_choice(c, [&](int f, int) { return base[static_cast<std::size_t>(f)]; });
  CHECK(c.chosen == 0);
}

TEST_CASE("a cached direct form is kept with no timed run") {
  form_calibration c(plain_forms());
  c.adopt(1, -1);
  CHECK(c.chosen == 1);
  CHECK(c.from_cache);
  CHECK_FALSE(c.round_done());
  CHECK(c.upcoming() < 0);
}

TEST_CASE("a cached switching form is timed against its direct form, then kept or chosen again") {
  SUBCASE("it still wins: kept after four runs") {
    form_calibration c(plain_forms());
    c.adopt(3, 1);
    const auto timed = run_to_choice(c, [](int f, int) { return f == 3 ? 0.5 : 1.0; });
    CHECK(timed == std::vector<int>{3, 3, 1, 1});
    CHECK(c.chosen == 3);
    CHECK(c.from_cache);
  }
  SUBCASE("it lost: the other forms twice each, and a new choice") {
    form_calibration c(plain_forms());
    c.adopt(3, 1);
    const branch_form_options o;
    for (const int f : {3, 3, 1, 1}) {
      REQUIRE(c.take() == f);
      c.record(f, f == 3 ? 2.0 : 1.0);
    }
    REQUIRE(c.round_done());
    CHECK_FALSE(c.next_round(o));
    CHECK_FALSE(c.from_cache);
    CHECK(c.queue == std::vector<int>{0, 2});  // once each, then again (first of their schedules)
    const auto timed = run_to_choice(c, [](int f, int) { return f == 0 ? 0.9 : 2.0; });
    CHECK(c.chosen == 0);
    CHECK(timed.front() == 0);
  }
}

TEST_CASE("a form that cannot run is skipped; none that can is an error naming why") {
  form_calibration c(plain_forms());
  c.fail(2, "the pool does not fit");
  const auto timed = run_to_choice(c, [](int f, int) { return f == 3 ? 0.4 : 1.0; });
  for (const int f : timed) CHECK(f != 2);
  CHECK(c.chosen == 3);

  form_calibration none(plain_forms());
  for (int f = 0; f < 4; ++f) none.fail(f, "the pool does not fit");
  REQUIRE(none.round_done());
  CHECK_THROWS_WITH_AS((void)none.next_round({}),
                       "automatic switching: no form of the program could run (the pool does "
                       "not fit)",
                       std::runtime_error);
}

TEST_CASE("a decided switching form whose time drifts is checked against direct: kept or not") {
  const branch_form_options o;
  const std::vector<double> base{1.0, 1.3, 0.5, 0.52};
  form_calibration c(plain_forms());
  (void)run_to_choice(c, [&](int f, int) { return base[static_cast<std::size_t>(f)]; });
  REQUIRE(c.chosen == 2);
  CHECK(c.reference_ms == 0.5);
  CHECK_FALSE(c.observe(0.52, 1, o));  // within the drift factor
  CHECK_FALSE(c.observe(0.9, 1, o));   // off once
  CHECK_FALSE(c.observe(0.5, 1, o));   // back: the streak starts over
  CHECK_FALSE(c.observe(0.9, 1, o));
  CHECK(c.observe(0.9, 1, o));  // off twice in a row: the check starts
  CHECK(c.chosen < 0);
  CHECK(c.rechecks == 1);
  CHECK(c.round == 0);
  CHECK(c.queue == std::vector<int>{2, 2, 0, 0});  // the choice, then the fastest direct form
  const int runs = c.runs;

  SUBCASE("it still wins: kept, its new time the reference") {
    (void)run_to_choice(c, [](int f, int) { return f == 2 ? 0.9 : 1.4; });
    CHECK(c.chosen == 2);
    CHECK(c.reference_ms == 0.9);
    CHECK(c.runs == runs + 4);
    SUBCASE("a second drift, from a choice that round zero kept, checks the same rival") {
      CHECK_FALSE(c.observe(0.3, 1, o));  // shorter work drifts too
      CHECK(c.observe(0.3, 1, o));
      CHECK(c.queue == std::vector<int>{2, 2, 0, 0});
      CHECK(c.rechecks == 2);
    }
  }
  SUBCASE("direct wins now: the forms that were close to direct again, and direct chosen") {
    const auto timed = run_to_choice(c, [](int f, int) { return f == 0 ? 0.8 : 1.2; });
    CHECK(std::vector<int>(timed.begin(), timed.begin() + 6) ==
          std::vector<int>{2, 2, 0, 0, 3, 3});  // strided was 1.3x direct: not timed again
    CHECK(std::count(timed.begin(), timed.end(), 1) == 0);
    CHECK(c.chosen == 0);
    CHECK(c.reference_ms == 0.8);
  }
  SUBCASE("every fourth check that loses times every form again") {
    for (int check = 1; check <= 4; ++check) {
      if (check > 1) {
        (void)c.observe(5.0, 1, o);
        REQUIRE(c.observe(5.0, 1, o));
      }
      REQUIRE(c.rechecks == check);
      // The choice loses round zero every time: its rival is twice as fast now.
      const int was = c.queue.front();
      const auto timed = run_to_choice(c, [was](int f, int) { return f == was ? 2.0 : 1.0; });
      CAPTURE(check);
      CHECK((std::count(timed.begin(), timed.end(), 1) > 0) == (check == 4));
    }
  }
}

TEST_CASE("a decided direct form that drifts is checked against the fastest switching form") {
  const branch_form_options o;
  form_calibration c(plain_forms());
  const std::vector<double> base{0.5, 0.7, 1.1, 1.0};
  (void)run_to_choice(c, [&](int f, int) { return base[static_cast<std::size_t>(f)]; });
  REQUIRE(c.chosen == 0);
  CHECK_FALSE(c.observe(2.0, 1, o));
  CHECK(c.observe(2.0, 1, o));
  CHECK(c.queue == std::vector<int>{0, 0, 3, 3});
  (void)run_to_choice(c, [](int f, int) { return f == 3 ? 1.0 : 2.0; });
  CHECK(c.chosen == 3);  // switching now beats every direct form by the margin
}

TEST_CASE("drift is per task, above the floor, and timed at the termination scheduler's cadence") {
  const branch_form_options o;
  const calibration_settings timing;
  SUBCASE("twice the tasks in twice the time is no drift") {
    form_calibration c(plain_forms());
    (void)run_to_choice(c, [](int f, int) { return f == 0 ? 1.0 : 2.0; });  // on 1 task
    REQUIRE(c.chosen == 0);
    for (int i = 0; i < 4; ++i) CHECK_FALSE(c.observe(2.0, 2, o));
    CHECK(c.drift_streak == 0);
    CHECK(c.observe(4.0, 2, o) == false);  // twice the time per task: off once
    CHECK(c.observe(4.0, 2, o));
  }
  SUBCASE("calls of 5000 and 8000 tasks in turn: chosen and followed per task") {
    form_calibration c(plain_forms());
    const auto tasks = [](int run) { return std::uint64_t(run % 2 == 0 ? 5000 : 8000); };
    const std::vector<double> per_task{1e-3, 1.3e-3, 0.9e-3, 0.7e-3};  // ms per task
    (void)run_to_choice(
        c, [&](int f, int run) { return per_task[static_cast<std::size_t>(f)] * tasks(run); }, o,
        tasks);
    REQUIRE(c.chosen == 3);  // the fastest per task, whichever count its runs had
    for (int i = 0; i < 6; ++i) CHECK_FALSE(c.observe(0.7e-3 * tasks(i), tasks(i), o));
    CHECK(c.rechecks == 0);
  }
  SUBCASE("short calls: three times the time but less than the floor apart") {
    form_calibration c(plain_forms());
    (void)run_to_choice(c, [](int f, int) { return f == 0 ? 0.02 : 0.04; });
    REQUIRE(c.chosen == 0);
    for (int i = 0; i < 4; ++i) CHECK_FALSE(c.observe(0.06, 1, o));
    CHECK(c.rechecks == 0);
    CHECK(c.timed_every(timing) == 50);  // 5 us of events stay within 0.5% of a 20 us call
  }
  SUBCASE(
      "the cadence: not the first run after the choice, clamped to [4, 1024], an off run "
      "confirmed at once") {
    form_calibration c(plain_forms());
    (void)run_to_choice(c, [](int f, int) { return f == 0 ? 5.0 : 9.0; });
    REQUIRE(c.chosen == 0);
    CHECK(c.timed_every(timing) == calibration::least_timed_every);
    std::vector<bool> timed;
    for (int i = 0; i < 8; ++i) timed.push_back(c.next_run_timed(timing));
    CHECK(timed == std::vector<bool>{false, false, false, true, false, false, false, true});
    CHECK_FALSE(c.observe(9.0, 1, o));  // off once
    CHECK(c.next_run_timed(timing));    // the next run confirms
    c.reference_ms = 1e-6;
    CHECK(c.timed_every(timing) == calibration::most_timed_every);
  }
  SUBCASE("a cached direct form: its second run sets the reference; a drift times every form") {
    form_calibration c(plain_forms());
    c.adopt(1, -1);
    CHECK_FALSE(c.next_run_timed(timing));  // the first run may load its kernels
    CHECK(c.next_run_timed(timing));
    CHECK_FALSE(c.observe(1.0, 1, o));
    CHECK(c.reference_ms == 1.0);
    CHECK_FALSE(c.observe(3.0, 1, o));
    CHECK(c.observe(3.0, 1, o));
    CHECK(c.round == 1);
    CHECK(c.queue == std::vector<int>{0, 1, 2, 3});
    CHECK_FALSE(c.from_cache);  // whatever it chooses now, this process chose it
    CHECK_FALSE(c.cached_here);
  }
  SUBCASE("bad drift options name the value") {
    branch_form_options bad;
    bad.drift = 1.0;
    CHECK_THROWS_WITH_AS(validate(bad), "drift = 1.000000: must be in (1, 100]",
                         std::invalid_argument);
    bad.drift = 1.25;
    bad.drift_floor_ms = -1;
    CHECK_THROWS_WITH_AS(validate(bad), "drift floor = -1.000000 ms: must be in [0, 1e6]",
                         std::invalid_argument);
  }
}

TEST_CASE("the report: the choice, where it came from, what choosing and the checks cost") {
  const branch_form_options o;
  const auto name = [](const branch_form& f) { return to_string(f); };
  form_calibration c(plain_forms());
  CHECK(form_report(c, name, "FILE").find("automatic switching: choosing; 0 timed runs") == 0);
  (void)run_to_choice(c, [](int f, int) { return f == 3 ? 0.5 : 1.0; });
  const std::string chosen = form_report(c, name, "FILE");
  CHECK(chosen.find("(0.500 ms); fastest direct form") != std::string::npos);
  CHECK(chosen.find("after a drift") == std::string::npos);
  CHECK(chosen.find("earlier process") == std::string::npos);
  (void)c.observe(1.0, 1, o);
  REQUIRE(c.observe(1.0, 1, o));
  CHECK(form_report(c, name, "FILE").find("automatic switching: checking after a drift;") == 0);
  (void)run_to_choice(c, [](int f, int) { return f == 3 ? 0.9 : 2.0; });
  CHECK(form_report(c, name, "FILE").find("; 1 check after a drift; forms:") != std::string::npos);

  form_calibration cached(plain_forms());
  cached.adopt(1, -1);
  CHECK(form_report(cached, name, "FILE") == "automatic switching: " + to_string(cached.forms[1]) +
                                                 " [chosen by an earlier process: FILE]");
}
