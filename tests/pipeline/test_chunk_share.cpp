// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The chunk share of all-or-nothing methods (chunk_share.hpp): which chunks a share r selects,
// and the marks that say why the others ran the original kernel.
#include <doctest/doctest.h>

#include <vector>

#include "microsched/pipeline/chunk_share.hpp"

using microsched::pipeline::chunk_share;
using mark = chunk_share::mark;

TEST_CASE("chunk share: the credit starts full, gains r per chunk and pays 1 per selection") {
  chunk_share s;
  s.reset(12);
  std::vector<std::size_t> selected;
  for (std::size_t c = 1; c < 12; ++c)
    if (s.take(c, 0.5)) selected.push_back(c);
  CHECK(selected == std::vector<std::size_t>{1, 2, 4, 6, 8, 10});
  CHECK(s.at(3) == mark::skipped);
  CHECK(s.at(4) == mark::none);
  s.reset(4);  // r = 1: every chunk; the credit never exceeds 2
  for (std::size_t c = 0; c < 4; ++c) CHECK(s.take(c, 1.0));
}

TEST_CASE("chunk share: a chunk whose slot was busy is selected again without new credit") {
  chunk_share s;
  s.reset(8);
  CHECK(s.take(1, 0.3));  // full credit: 1.3 -> 0.3
  s.slot_busy(1);
  CHECK(s.at(1) == mark::slot_busy);
  CHECK(s.take(1, 0.3));        // the retry: no credit taken or paid
  CHECK_FALSE(s.take(2, 0.3));  // 0.6
  CHECK_FALSE(s.take(3, 0.3));  // 0.9
  CHECK(s.take(4, 0.3));        // 1.2 -> 0.2
}

TEST_CASE("chunk share: passing over, awaiting a profile, speculative chunks") {
  chunk_share s;
  s.reset(6);
  CHECK(s.take(1, 0.5));
  s.slot_busy(1);
  s.pass_over(1);  // a mark already set stays
  CHECK(s.at(1) == mark::slot_busy);
  s.pass_over(2);
  CHECK(s.at(2) == mark::skipped);
  s.await_profile(3);
  CHECK(s.at(3) == mark::awaiting_profile);
  CHECK_FALSE(s.speculative(4));
  s.set_speculative(4);
  CHECK(s.speculative(4));
  s.reset(6);
  CHECK(s.at(3) == mark::none);
  CHECK_FALSE(s.speculative(4));
}
