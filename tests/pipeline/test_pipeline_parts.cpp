// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The chunk pipeline's named parts as pure functions: the two profiling policies, the slot
// choice and the pacing of the launching thread.
#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "microsched/pipeline/pacing.hpp"
#include "microsched/pipeline/profiling.hpp"
#include "microsched/pipeline/slot_choice.hpp"

using namespace microsched::pipeline;

TEST_CASE("profiling policies: what is transformed and by how many helpers") {
  // Partial: r of the elements, whole granules; all of them at r >= 1.
  CHECK(partial_profiling::transformed(1000, 0.5, 32) == 480);  // 500 -> 15 granules
  CHECK(partial_profiling::transformed(1000, 0.01, 32) == 0);   // less than a granule: nothing
  CHECK(partial_profiling::transformed(1000, 1.0, 32) == 1000);
  CHECK(partial_profiling::transformed(1000, 0.999, 1) == 999);
  // Whole chunks: always the whole chunk, whatever r (r is the share of chunks).
  CHECK(whole_chunk_profiling::transformed(1000, 0.1, 32) == 1000);
  // Helpers per segment: threads_per_chunk for partial methods, every helper for whole chunks.
  CHECK(partial_profiling::helpers_per_segment(2, 15, 1) == 2);
  CHECK(whole_chunk_profiling::helpers_per_segment(2, 15, 1) == 15);
  CHECK(whole_chunk_profiling::helpers_per_segment(2, 15, 5) == 3);
  CHECK(whole_chunk_profiling::helpers_per_segment(5, 8, 4) == 5);  // never fewer than asked
  CHECK(whole_chunk_profiling::helpers_per_segment(5, 8, 0) == 8);  // segments < 1 read as 1
  // Only whole chunks let the GPU wait for the copy.
  CHECK_FALSE(partial_profiling::copy_waited_on_gpu());
  CHECK(whole_chunk_profiling::copy_waited_on_gpu());
  CHECK(partial_profiling::times_optimised_kernel(1.0));
  CHECK_FALSE(partial_profiling::times_optimised_kernel(0.5));
  CHECK(whole_chunk_profiling::times_optimised_kernel(0.5));
}

TEST_CASE("profiling policies: which chunk is profiled and which misses are judged") {
  // Whole chunks: the profiled chunk is min(Δ, 2), at most the last chunk.
  CHECK(whole_chunk_profiling::first_profiled(1, 32) == 1);
  CHECK(whole_chunk_profiling::first_profiled(3, 32) == 2);
  CHECK(whole_chunk_profiling::first_profiled(8, 32) == 2);
  CHECK(whole_chunk_profiling::first_profiled(3, 2) == 1);
  CHECK(whole_chunk_profiling::first_profiled(3, 1) == 1);
  CHECK(whole_chunk_profiling::profile_lead(0) == 1);
  CHECK(whole_chunk_profiling::profile_lead(5) == 2);
  CHECK(whole_chunk_profiling::control_window(3, 2) == 2);
  CHECK(partial_profiling::control_window(3, 2) == 3);
  CHECK(partial_profiling::control_window(0, 2) == 1);
  for (std::size_t i = 0; i < 6; ++i) {
    // Partial: while profiling only chunks with Δ = 3 kernel times; after, every chunk.
    CHECK(partial_profiling::judged(true, i, 2, 3) == (i >= 3));
    CHECK(partial_profiling::judged(false, i, 2, 3));
    // Whole chunks: while profiling only the profiled chunk.
    CHECK(whole_chunk_profiling::judged(true, i, 2, 3) == (i == 2));
    CHECK(whole_chunk_profiling::judged(false, i, 2, 3));
  }
  // The share while the verdict is awaited: Torg / (Ttr + Torg), within [min_ratio, 1].
  CHECK(speculative_share(0.33, 0.33, 0.05) == doctest::Approx(0.5));
  CHECK(speculative_share(0.33, 100.0, 0.05) == doctest::Approx(0.05));
  CHECK(speculative_share(0.33, 0.0, 0.05) == doctest::Approx(1.0));
  CHECK(speculative_share(0.0, 0.0, 0.05) == doctest::Approx(1.0));  // nothing measured yet
}

TEST_CASE(
    "slot choice: partial methods take chunk % slots; whole chunks any free slot, released first") {
  std::vector<bool> reusable{true, true, true};
  std::vector<bool> released{true, true, true};
  std::vector<std::size_t> asked;  // the order in which slots are asked about
  auto is_reusable = [&](std::size_t k) {
    asked.push_back(k);
    return bool(reusable[k]);
  };
  auto is_released = [&](std::size_t k) { return bool(released[k]); };
  CHECK(choose_slot(4, 3, false, is_reusable, is_released) == 1);
  reusable[1] = false;
  CHECK(choose_slot(4, 3, false, is_reusable, is_released) == -1);  // partial: no other slot
  CHECK(choose_slot(4, 3, true, is_reusable, is_released) == 2);    // whole chunks: the next one
  // A free slot whose last optimised kernel is still queued is taken only when no released one
  // is free; slots are tried from chunk % slots on.
  reusable = {true, true, true};
  released = {true, false, true};
  asked.clear();
  CHECK(choose_slot(4, 3, true, is_reusable, is_released) == 2);
  CHECK(asked == std::vector<std::size_t>{2});
  released = {false, false, false};
  asked.clear();
  CHECK(choose_slot(4, 3, true, is_reusable, is_released) == 1);
  CHECK(asked == std::vector<std::size_t>{1});
  reusable = {false, false, false};
  CHECK(choose_slot(4, 3, true, is_reusable, is_released) == -1);
  CHECK(choose_slot(0, 0, true, is_reusable, is_released) == -1);
}

TEST_CASE("pacing: the paper's rule for partial methods") {
  pacing_plan plan;  // partial, not profiling
  launch_pacer p(plan);
  CHECK_FALSE(p.done({.next_ready = false, .waited_ended = false}));
  CHECK(p.done({.next_ready = true, .waited_ended = false}));  // chunk i+1 ready: launch it
  CHECK(p.done({.next_ready = false, .waited_ended = true}));  // GPU done with chunk i: go on
  // Profiling a partial method: kernel i's time first, even with chunk i+1 ready.
  plan.profiling = true;
  launch_pacer q(plan);
  CHECK_FALSE(q.done({.next_ready = true, .waited_ended = false}));
  CHECK(q.done({.next_ready = true, .waited_ended = true}));
}

TEST_CASE("pacing: whole chunks keep one chunk queued and decide just in time") {
  CHECK(queue_ahead(true, 2));
  CHECK_FALSE(queue_ahead(true, 1));
  CHECK_FALSE(queue_ahead(false, 3));
  CHECK(expected_kernel_ms(false, true, false, 0.1, 0.33) < 0);  // partial: no just-in-time wait
  CHECK(expected_kernel_ms(true, false, false, 0.1, 0.33) < 0);  // no kernel i-1 timed
  CHECK(expected_kernel_ms(true, true, false, 0.1, 0.33) == doctest::Approx(0.33));
  CHECK(expected_kernel_ms(true, true, true, 0.1, 0.33) == doctest::Approx(0.1));
  CHECK(pacing_margin_ns(0.33) == 66000);  // 20 %
  CHECK(pacing_margin_ns(0.05) == 20000);  // at least 20 us

  pacing_plan plan;
  plan.whole_chunks = true;
  plan.previous_timed = true;
  plan.expected_ms = 0.33;
  plan.margin_ns = pacing_margin_ns(0.33);
  launch_pacer p(plan);
  // A ready chunk i+1 still waits for kernel i-1: the host stays at most two launches ahead.
  CHECK_FALSE(p.done({.next_ready = true, .previous_ended = false, .now_ns = 0}));
  // Kernel i-1 seen ended at t = 1 ms: kernel i started; not ready, wait until its expected
  // end less the margin (1 ms + 0.33 ms - 0.066 ms).
  CHECK_FALSE(p.done({.previous_ended = true, .now_ns = 1'000'000}));
  CHECK_FALSE(p.done({.previous_ended = true, .now_ns = 1'263'999}));
  CHECK(p.done({.previous_ended = true, .now_ns = 1'264'000}));
  launch_pacer q(plan);
  CHECK_FALSE(q.done({.previous_ended = false, .now_ns = 5'000'000}));  // kernel i not started
  CHECK(q.done(
      {.previous_ended = false, .current_ended = true, .now_ns = 5'000'000}));  // kernel i ended
  // Without a known kernel time, the queued pacing: until the GPU is done with chunk i-1.
  plan.expected_ms = -1;
  launch_pacer r(plan);
  CHECK_FALSE(r.done({.previous_ended = false, .waited_ended = false}));
  CHECK(r.done({.previous_ended = false, .waited_ended = true}));
}
