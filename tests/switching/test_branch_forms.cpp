// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The automatic switching schedule's host logic (branch_forms.hpp): the candidate list, the
// finalists of the first round, the never-slower rule against the fastest direct form, and how a
// cached choice is found again.
#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "microsched/switching/branch_forms.hpp"

using namespace microsched;
using namespace microsched::switching;

TEST_CASE("the candidate list: direct forms at each march window and order, then switching forms") {
  const branch_form_options o;
  const auto forms = branch_forms(true, {0, 3}, o);
  // 2 orders x 3 march windows x 2 direct forms, then 2 orders x 2 x 2 switching schedules.
  REQUIRE(forms.size() == 2 * 3 * 2 + 2 * 2 * 2);
  int direct = 0;
  for (const auto& f : forms) direct += f.direct() ? 1 : 0;
  CHECK(direct == 12);
  CHECK(forms.front().march_window == 16);
  CHECK(forms.front().order == 0);
  CHECK(forms.back().order == 3);
  CHECK(!forms.back().direct());
  // A program without knobs: the direct mapping in both forms and the switching schedules.
  const auto plain = branch_forms(false, {}, o);
  REQUIRE(plain.size() == 4);
  for (const auto& f : plain) {
    CHECK(f.march_window == 0);
    CHECK(f.order == -1);
  }
}

TEST_CASE("bad options are refused with the value named") {
  branch_form_options o;
  o.direct_march_windows = {0};
  CHECK_THROWS_WITH_AS(validate(o), "direct march window = 0: must be in 1..4096",
                       std::invalid_argument);
  o = {};
  o.margin = 0.7;
  CHECK_THROWS_AS(validate(o), std::invalid_argument);
  o = {};
  o.final_runs = 0;
  CHECK_THROWS_WITH_AS(validate(o), "final runs = 0: must be in 1..100", std::invalid_argument);
}

TEST_CASE("the choice is never slower than the fastest direct form beyond the margin") {
  std::vector<branch_form> forms(3);
  forms[0].schedule.strategy = pool_strategy::direct;
  forms[1].schedule.strategy = pool_strategy::strided;
  forms[2].schedule.strategy = pool_strategy::hybrid;
  SUBCASE("a switching form within the margin loses to the direct form") {
    CHECK(choose_form(forms, {1.00, 1.10, 0.99}, 0.02) == 0);
  }
  SUBCASE("a switching form beyond the margin wins") {
    CHECK(choose_form(forms, {1.00, 1.10, 0.90}, 0.02) == 2);
  }
  SUBCASE("among direct forms the fastest wins, whatever the margin") {
    CHECK(choose_form(forms, {1.00, 0.995, 2.0}, 0.02) == 1);
  }
  SUBCASE("untimed forms (-1) are left out") {
    CHECK(choose_form(forms, {-1, 1.2, 1.0}, 0.02) == 2);
    CHECK(choose_form(forms, {-1, 1.0, 0.99}, 0.02) == 1);
    CHECK(choose_form(forms, {-1, -1, 1.0}, 0.02) == 2);
    CHECK(choose_form(forms, {-1, -1, -1}, 0.02) == -1);
  }
}

TEST_CASE("finalists: the forms near the fastest, and the fastest direct form always") {
  std::vector<branch_form> forms(4);
  forms[0].schedule.strategy = pool_strategy::direct;
  forms[1].schedule.strategy = pool_strategy::strided;
  forms[2].schedule.strategy = pool_strategy::hybrid;
  forms[3].schedule.strategy = pool_strategy::hybrid;
  const auto kept = finalists(forms, {2.0, 3.0, 1.0, 1.1}, 0.15);
  CHECK(kept == std::vector<int>{0, 2, 3});
  CHECK(finalists(forms, {-1, -1, -1, -1}, 0.15).empty());
}

TEST_CASE(
    "a cached form is found by its knobs and schedule, a switching one with its direct form") {
  const auto forms = branch_forms(true, {0, 3}, {});
  CHECK(form_key(forms.front()) == "w16 o0");
  CHECK(form_key(branch_forms(false, {}, {}).front()) == "w0 o-1");
  const branch_form& direct = forms[1];  // strided w16 order 0
  REQUIRE(direct.direct());
  for (std::size_t i = 0; i < forms.size(); ++i) {
    const std::string text = cached_form_text(forms[i], direct);
    const cached_form found = find_cached_form(forms, text, forms[i].schedule);
    CHECK(found.choice == static_cast<int>(i));
    CHECK(found.reference == (forms[i].direct() ? -1 : 1));
  }
  const branch_form& switching = forms.back();
  REQUIRE_FALSE(switching.direct());
  CHECK(cached_form_text(switching, direct) == "w32 o3 vs w16 o0 strided");
  // Another list (an order this size lacks, a schedule no longer tried), a reference that is not
  // a form of the list, or text that names nothing: not found.
  CHECK(
      find_cached_form(branch_forms(true, {0}, {}), "w32 o3 vs w16 o0 strided", switching.schedule)
          .choice == -1);
  schedule_arguments other = switching.schedule;
  other.chunk = 12345;
  CHECK(find_cached_form(forms, "w32 o3 vs w16 o0 strided", other).choice == -1);
  CHECK(find_cached_form(forms, "w32 o3 vs w999 o0 strided", switching.schedule).choice == -1);
  CHECK(find_cached_form(forms, "w32 o3", switching.schedule).choice == -1);  // no reference
  CHECK(find_cached_form(forms, "w16 o0 vs w16 o0 strided", direct.schedule).choice == -1);
  for (const char* garbage : {" ", "w64", "garbage", "w16 o0 vs", " vs "}) {
    CAPTURE(garbage);
    CHECK(find_cached_form(forms, garbage, switching.schedule).choice == -1);
    CHECK(find_cached_form(forms, garbage, direct.schedule).choice == -1);
  }
}

TEST_CASE("options share a choice only where every knob is equal") {
  const branch_form_options a;
  branch_form_options b;
  CHECK(options_text(a) == options_text(b));
  b.margin = a.margin + 1e-9;  // beyond what six decimals show
  CHECK(options_text(a) != options_text(b));
  b = a;
  b.switching_march_windows = {16};
  CHECK(options_text(a) != options_text(b));
  b = a;
  b.drift_floor_ms = 0.1;
  CHECK(options_text(a) != options_text(b));
}
