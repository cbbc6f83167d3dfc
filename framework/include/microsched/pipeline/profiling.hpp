// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file profiling.hpp
//! The chunk pipeline's two profiling policies, one per kind of remap method. The driver
//! (chunk_pipeline.hpp) is one loop templated on them; everything that differs between the two
//! kinds of method is a pure function here, tested on the host.
//!
//! - partial_profiling (remap_method::partial = true, the paper's zhang2011 §5.3): r is the share
//!   of each chunk's elements that is remapped. Every chunk i+Δ is submitted at the current r;
//!   profiling submits chunks 1..Δ at r0 and judges those that had Δ kernel times.
//! - whole_chunk_profiling (remap_method::partial = false): a remap of part of a chunk saves
//!   nothing, so each selected chunk is remapped whole, by every helper, and r is the share of
//!   chunks selected (chunk_share.hpp). An adaptive control profiles one chunk at a time (a remap
//!   that cannot keep up then costs one chunk's helper work, not Δ chunks'), and a miss profiles
//!   chunk +Δ (adaptive_arguments::profile_attempts).

#include <algorithm>
#include <cstddef>

#include "microsched/pipeline/adaptive_control.hpp"

namespace microsched::pipeline {

//! r is a share of each chunk's elements.
struct partial_profiling {
  static constexpr remap_scope scope = remap_scope::partial;
  static constexpr const char* name = "partial";

  //! m, the elements of a chunk of `elements` remapped at ratio `r`: whole granules, all of them
  //! at r >= 1.
  [[nodiscard]] static constexpr std::size_t transformed(std::size_t elements, double r,
                                                         std::size_t granularity) noexcept {
    if (r >= 1.0) return elements;
    const auto m = static_cast<std::size_t>(r * static_cast<double>(elements));
    return m / granularity * granularity;
  }

  //! Helpers working on one segment of a chunk: threads_per_chunk, so Δ chunks overlap.
  [[nodiscard]] static constexpr int helpers_per_segment(int threads_per_chunk, int /*pool*/,
                                                         int /*segments*/) noexcept {
    return threads_per_chunk;
  }

  //! Whether the launch waits for the copy on the GPU (the stream waits for the copy's event)
  //! instead of the host seeing the copy done: never for partial methods (the paper's rule).
  [[nodiscard]] static constexpr bool copy_waited_on_gpu() noexcept { return false; }

  //! The chunk a profile judges first. Partial methods judge every warm-up chunk that had Δ
  //! kernel times: the first of them is Δ.
  [[nodiscard]] static constexpr std::size_t first_profiled(int depth,
                                                            std::size_t /*chunks*/) noexcept {
    return static_cast<std::size_t>(std::max(1, depth));
  }

  //! The control's window: the kernel times a transformation of chunk i+Δ has.
  [[nodiscard]] static constexpr int control_window(int depth, std::size_t /*profiled*/) noexcept {
    return std::max(1, depth);
  }

  //! Whether chunk i's miss is the control's verdict: after profiling, always; while profiling,
  //! only a chunk that had Δ kernel times (chunks 1..Δ-1 had fewer).
  [[nodiscard]] static constexpr bool judged(bool profiling, std::size_t i,
                                             std::size_t /*profiled*/, int depth) noexcept {
    return !profiling || i >= static_cast<std::size_t>(depth);
  }

  //! Whether an optimised chunk's kernel time is Topt (a partial remap at r < 1 leaves part of the
  //! chunk on its original mapping: its time is neither Torg nor Topt).
  [[nodiscard]] static constexpr bool times_optimised_kernel(double r) noexcept { return r >= 1.0; }
};

//! r is a share of whole chunks.
struct whole_chunk_profiling {
  static constexpr remap_scope scope = remap_scope::whole_chunk;
  static constexpr const char* name = "whole chunk";

  [[nodiscard]] static constexpr std::size_t transformed(std::size_t elements, double /*r*/,
                                                         std::size_t /*granularity*/) noexcept {
    return elements;
  }

  //! A whole chunk is worth nothing until its last piece ends: its pieces go to every helper
  //! (lowest latency; the pool holds threads_per_chunk × Δ helpers, so chunks still overlap).
  [[nodiscard]] static constexpr int helpers_per_segment(int threads_per_chunk, int pool,
                                                         int segments) noexcept {
    return std::max(threads_per_chunk, pool / std::max(1, segments));
  }

  //! A complete remap launches as soon as its uploads are enqueued, the compute stream waiting
  //! for the copy on the GPU: a copy queued behind an original chunk's input copy would otherwise
  //! keep a finished remap from its launch.
  [[nodiscard]] static constexpr bool copy_waited_on_gpu() noexcept { return true; }

  //! The first profiled chunk: min(Δ, 2), the last chunk at most. Chunk 2 has two kernel times,
  //! twice what a chunk the share selects has in steady state (it follows one original); the
  //! chunks before it run the original kernel.
  [[nodiscard]] static constexpr std::size_t first_profiled(int depth,
                                                            std::size_t chunks) noexcept {
    return std::min(profile_lead(depth), chunks > 1 ? chunks - 1 : std::size_t{1});
  }

  //! Kernel times a profiled chunk has before its launch: min(Δ, 2). A re-armed control profiles
  //! the chunk this far ahead.
  [[nodiscard]] static constexpr std::size_t profile_lead(int depth) noexcept {
    return static_cast<std::size_t>(std::clamp(depth, 1, 2));
  }

  //! The window a profile's miss names: the profiled chunk's kernel times.
  [[nodiscard]] static constexpr int control_window(int /*depth*/, std::size_t profiled) noexcept {
    return static_cast<int>(profiled);
  }

  //! While profiling, only the profiled chunk's miss is the verdict.
  [[nodiscard]] static constexpr bool judged(bool profiling, std::size_t i, std::size_t profiled,
                                             int /*depth*/) noexcept {
    return !profiling || i == profiled;
  }

  [[nodiscard]] static constexpr bool times_optimised_kernel(double /*r*/) noexcept { return true; }
};

//! The share of chunks a profile's verdict gives at least, Torg / (Ttr + Torg) (the saving is at
//! most Torg), clamped to [min_ratio, 1]: the share at which chunks after the profiled one are
//! selected while the verdict is awaited.
[[nodiscard]] constexpr double speculative_share(double torg_ms, double transform_ms,
                                                 double min_ratio) noexcept {
  const double total = transform_ms + torg_ms;
  if (!(total > 0)) return 1.0;  // neither time measurable yet: the bound's limit as Ttr -> 0
  return std::clamp(torg_ms / total, min_ratio, 1.0);
}

}  // namespace microsched::pipeline
