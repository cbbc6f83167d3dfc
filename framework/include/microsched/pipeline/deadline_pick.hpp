#pragma once
//! @file deadline_pick.hpp
//! Which chunk the helpers transform next under an all-or-nothing method (ours): the earliest
//! chunk whose launch is predicted to come after its remap is done. A remap of part of such a
//! chunk saves nothing, every helper works on one chunk at a time, and a chunk whose remap is not
//! ready at its launch runs the original kernel and throws the helpers' work away. The chunk
//! share r of runs 14-15 selected chunks at a rate and let Figure 8 adjust it: it oscillated, and
//! a third of the helpers' time went into remaps that missed (results-pipeline.md, run 16: chunks
//! 25, 26, 29, 30 of one unwrap run), while at other times the helpers idled. Picking by deadline
//! keeps the helpers busy on chunks they can finish.
//!
//! The prediction, in the main thread's terms: chunk c is decided once the GPU is about to finish
//! chunk c-1 (just-in-time pacing, chunk_pipeline.hpp), that is after the GPU work already queued
//! (`residual_ms`) and the steps of the chunks not yet launched before c (an original's Torg, or
//! Topt for one whose remap is under way or ready), less the pacing margin. The remap's time is
//! estimated from the recent ones (the driver keeps them across runs of the same loop). A miss
//! costs a whole remap and an estimate too long a later pick, but a high quantile of a few
//! samples follows the outliers: on the H100 host the first remaps of a run took 0.6-0.9 ms
//! against 0.3 ms later, and a 0.75 quantile of 8 kept the picks two originals ahead for the
//! whole run (run 16); the driver uses the median, and a miss feeds its time so far.

#include <cstddef>
#include <vector>

namespace microsched::pipeline {

class deadline_picker {
 public:
  static constexpr std::size_t none = static_cast<std::size_t>(-1);

  //! `history`: remap times kept; `quantile`: the one taken as the estimate (0..1).
  //! Throws std::invalid_argument naming a bad value.
  explicit deadline_picker(std::size_t history = 8, double quantile = 0.75);

  //! A finished remap took `ms` (its first piece's start to its last piece's end).
  void remap_time(double ms);
  //! The estimate of the next remap's time (ms); < 0 while none was seen.
  [[nodiscard]] double estimate_ms() const;
  void clear() { recent_.clear(); next_ = 0; }

  //! The first chunk c in [first, last] with `residual_ms + Σ step_ms(k) for k in [launched, c)
  //! - margin_ms(step_ms(c - 1)) >= estimate_ms`, or `none`. Chunks in [launched, first) are
  //! decided already (their steps count, they are not candidates). `step_ms(k)`: the GPU step
  //! predicted for chunk k.
  template <class Step, class Margin>
  [[nodiscard]] std::size_t pick(double residual_ms, std::size_t launched, std::size_t first, std::size_t last,
                                 double estimate_ms, Step&& step_ms, Margin&& margin_ms) const {
    if (estimate_ms < 0 || first > last) return none;
    double until = residual_ms;  // predicted time until chunk c is decided, before the margin
    double previous = 0;         // step of chunk c - 1 (0: already launched)
    for (std::size_t c = launched; c <= last; ++c) {
      if (c >= first && until - (c > launched ? margin_ms(previous) : 0.0) >= estimate_ms) return c;
      previous = step_ms(c);
      until += previous;
    }
    return none;
  }

 private:
  std::size_t history_;
  double quantile_;
  std::vector<double> recent_;  // ring of the last `history_` remap times
  std::size_t next_ = 0;
};

}  // namespace microsched::pipeline
