// The deadline pick of all-or-nothing methods (deadline_pick.hpp): the remap-time estimate and
// the earliest chunk whose predicted decision comes after it.
#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "microsched/pipeline/deadline_pick.hpp"

using microsched::pipeline::deadline_picker;

namespace {
constexpr double torg = 0.33, topt = 0.01;
double margin(double step_ms) { return step_ms * 0.2 > 0.02 ? step_ms * 0.2 : 0.02; }
}  // namespace

TEST_CASE("deadline pick: the estimate is a high quantile of the recent remap times") {
  deadline_picker p(4, 0.75);
  CHECK(p.estimate_ms() < 0);
  for (const double ms : {0.4, 0.1, 0.3, 0.2}) p.remap_time(ms);
  CHECK(p.estimate_ms() == doctest::Approx(0.3));  // sorted 0.1 0.2 0.3 0.4, index round(2.25)
  p.remap_time(0.9);  // replaces the oldest (0.4)
  p.remap_time(0.8);  // replaces 0.1
  CHECK(p.estimate_ms() == doctest::Approx(0.8));  // 0.2 0.3 0.8 0.9
  p.remap_time(-1);   // ignored
  p.remap_time(0);
  CHECK(p.estimate_ms() == doctest::Approx(0.8));
  p.clear();
  CHECK(p.estimate_ms() < 0);
  CHECK_THROWS_AS(deadline_picker(0), std::invalid_argument);
  CHECK_THROWS_AS(deadline_picker(8, 1.5), std::invalid_argument);
}

TEST_CASE("deadline pick: the earliest chunk decided after the remap would be done") {
  const deadline_picker p;
  auto originals = [](std::size_t) { return torg; };
  // Chunk 10 is decided once the queued work (0.5 ms) has run: a 0.3 ms remap makes it.
  CHECK(p.pick(0.5, 10, 10, 31, 0.3, originals, margin) == 10);
  // A 0.6 ms remap: chunk 11, decided 0.5 + 0.33 - 0.066 ms from now.
  CHECK(p.pick(0.5, 10, 10, 31, 0.6, originals, margin) == 11);
  // Chunk 11 was decided already (an original): the next candidate is 12.
  CHECK(p.pick(0.5, 10, 12, 31, 0.6, originals, margin) == 12);
  // Chunk 10 is ready (Topt): it hardly delays chunk 11, so the pick is two originals later.
  auto ten_ready = [](std::size_t k) { return k == 10 ? topt : torg; };
  CHECK(p.pick(0.1, 10, 11, 31, 0.6, ten_ready, margin) == 13);
  // Nothing feasible before the last chunk, no estimate yet, or an empty range: none.
  CHECK(p.pick(0.0, 30, 30, 31, 5.0, originals, margin) == deadline_picker::none);
  CHECK(p.pick(0.5, 10, 10, 31, -1.0, originals, margin) == deadline_picker::none);
  CHECK(p.pick(0.5, 10, 12, 11, 0.3, originals, margin) == deadline_picker::none);
}
