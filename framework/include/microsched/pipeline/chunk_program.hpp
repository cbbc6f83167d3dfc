// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file chunk_program.hpp
//! The two concepts the chunk pipeline (chunk_pipeline.hpp) is written against, and the records
//! they exchange: a `pipeline_backend` (streams and events; cuda_backend.hpp is the real one, the
//! host tests simulate one) and a `chunk_program` (the user's transformation, copies, launches).

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <vector>

#include "microsched/pipeline/pipeline_arguments.hpp"

namespace microsched::pipeline {

//! One piece of a chunk's transformation (helper thread) or one segment's copy (main thread).
struct transform_job {
  std::size_t chunk = 0;
  int slot = 0;           //!< staging slot the remap goes to
  int method = 0;         //!< index into the program's methods()
  std::size_t begin = 0;  //!< element range of this piece or segment
  std::size_t end = 0;
  std::size_t transformed = 0;  //!< m: elements [0, m) are remapped, the rest keep their mapping
  std::size_t elements = 0;     //!< elements of the chunk
  //! Set when the chunk was launched without its remap: a long transformation may poll it and
  //! return early (its result is discarded). Null for upload and launch jobs.
  const std::atomic<bool>* cancel = nullptr;

  [[nodiscard]] bool cancelled() const noexcept {
    return cancel != nullptr && cancel->load(std::memory_order_relaxed);
  }
};

//! What a piece's transformation achieved, in the program's own measure (summed per chunk).
struct transform_outcome {
  double before = 0;
  double after = 0;
};

//! Streams and events, named by small integers so the driver never holds a CUDA type.
template <class B>
concept pipeline_backend = requires(B& b, int e, typename B::stream_type s) {
  typename B::stream_type;
  { b.compute_stream() } -> std::same_as<typename B::stream_type>;
  { b.copy_stream() } -> std::same_as<typename B::stream_type>;
  { b.make_event() } -> std::same_as<int>;
  b.record(e, s);
  { b.query(e) } -> std::same_as<bool>;  //!< true once all work before the record is done
  b.wait(s, e);                          //!< stream s waits for the event (host does not)
  b.synchronize_event(e);
  { b.elapsed_ms(e, e) } -> std::convertible_to<double>;
  b.synchronize();
};

//! What a user program supplies. transform() runs on helper threads, for disjoint pieces at once;
//! everything else runs on the thread that called run().
template <class P, class B>
concept chunk_program = requires(P& p, const P& cp, const transform_job& job,
                                 typename B::stream_type s, std::size_t chunk, int n) {
  { cp.chunk_count() } -> std::convertible_to<std::size_t>;
  { cp.chunk_elements(chunk) } -> std::convertible_to<std::size_t>;
  { cp.methods() } -> std::convertible_to<std::vector<remap_method>>;
  p.prepare(n, n);  //!< (method, slots): allocate staging
  { p.transform(job) } -> std::same_as<transform_outcome>;
  p.upload(job, s);             //!< enqueue the copy of [begin, end) of the slot's staging
  p.launch_original(chunk, s);  //!< what the original program enqueues for this chunk
  p.launch_optimised(job, s);   //!< the same with the remap in job.slot, job.transformed elements
};

//! Optional: where to cut the remapped elements [0, m) of a chunk into `pieces` pieces, as
//! pieces + 1 increasing bounds from 0 to m, the inner ones multiples of `granularity`. For a
//! transformation whose cost per element is uneven (unwrap: the outer rings of the polar map
//! touch many more frame lines than the inner ones), pieces of equal cost end together. An empty or
//! invalid answer: pieces of equal size.
template <class P>
concept weighted_pieces = requires(P& p, std::size_t chunk, std::size_t m, int pieces,
                                   std::size_t g) {
  { p.piece_bounds(chunk, m, pieces, g) } -> std::convertible_to<std::vector<std::size_t>>;
};

//! [0, m) cut into `pieces` pieces of equal size at multiples of `granularity` (pieces >= 1,
//! granularity >= 1): pieces + 1 bounds from 0 to m. The cut where a program gives none.
[[nodiscard]] inline std::vector<std::size_t> equal_piece_bounds(std::size_t m, int pieces,
                                                                 std::size_t granularity) {
  const std::size_t units = (m + granularity - 1) / granularity;
  const auto p = static_cast<std::size_t>(pieces);
  std::vector<std::size_t> bounds(p + 1);
  for (std::size_t k = 0; k <= p; ++k) bounds[k] = std::min(m, units * k / p * granularity);
  return bounds;
}

//! Whether `bounds` cut [0, m) into `pieces` non-empty pieces at multiples of `granularity`.
[[nodiscard]] inline bool valid_piece_bounds(const std::vector<std::size_t>& bounds, std::size_t m,
                                             int pieces, std::size_t granularity) noexcept {
  if (pieces < 1 || bounds.size() != static_cast<std::size_t>(pieces) + 1 || bounds.front() != 0 ||
      bounds.back() != m)
    return false;
  for (std::size_t k = 1; k < bounds.size(); ++k) {
    if (bounds[k] <= bounds[k - 1]) return false;
    if (k + 1 < bounds.size() && bounds[k] % granularity != 0) return false;
  }
  return true;
}

}  // namespace microsched::pipeline
