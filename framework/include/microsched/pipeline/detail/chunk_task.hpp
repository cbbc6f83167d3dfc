// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file chunk_task.hpp
//! The chunk pipeline's bookkeeping: one chunk's transformation (cut into segments of pieces),
//! the staging slots, and the event pair around each timed launch.

#include <atomic>
#include <cstddef>
#include <memory>

#include "microsched/pipeline/detail/transform_task.hpp"

namespace microsched::pipeline::detail {

//! One chunk's transformation: `segments` segments of `pieces_per_segment` pieces. A segment is
//! uploaded as soon as its pieces have returned, so its copy overlaps the next segment's pieces.
struct chunk_task : transform_task {
  std::size_t chunk = 0;
  int slot = 0;
  double ratio = 0;
  std::size_t transformed = 0;  // m
  std::size_t elements = 0;
  int segments = 1;
  int pieces_per_segment = 1;
  std::unique_ptr<std::atomic<int>[]> pieces_left;  // per segment
  std::atomic<int> pieces_finished{0};
  // main thread only
  int segments_uploaded = 0;
  bool copy_recorded = false;
  int copy_event = -1;

  [[nodiscard]] int pieces() const { return segments * pieces_per_segment; }
  [[nodiscard]] bool all_finished() const {
    return pieces_finished.load(std::memory_order_acquire) == pieces();
  }
  [[nodiscard]] bool segment_ready(int s) const {
    return pieces_left[s].load(std::memory_order_acquire) == 0;
  }
  //! Helper wall time so far (ms).
  [[nodiscard]] double transform_ms() const { return elapsed_ms(all_finished()); }
  //! A piece returned (run or skipped).
  void piece_done(int piece) {
    pieces_left[piece / pieces_per_segment].fetch_sub(1, std::memory_order_acq_rel);
    pieces_finished.fetch_add(1, std::memory_order_acq_rel);
  }
};

//! One staging slot: host staging and its device copy, reused chunk after chunk.
struct slot_state {
  std::shared_ptr<chunk_task> task;  // last task that used this slot
  int released_event = -1;           // compute stream: last optimised kernel reading the slot
  bool released_recorded = false;
};

//! The events around one timed launch (a ring of them is reused).
struct launch_events {
  int start = -1;
  int end = -1;
};

}  // namespace microsched::pipeline::detail
