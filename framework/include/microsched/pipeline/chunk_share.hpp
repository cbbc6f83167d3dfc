// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file chunk_share.hpp
//! The chunk share of all-or-nothing methods (ours, zhang2011 §5.3's partial transformation at
//! chunk granularity): a remap of part of such a chunk saves nothing, so r is the share of chunks
//! the helpers transform; the others run the original kernel while the helpers work ahead on the
//! next selected chunk, so the GPU and the helpers both stay busy when the helpers alone cannot
//! keep up with the optimised kernels. Chunks are considered in order with a credit that starts
//! full, gains r per chunk considered and pays 1 per chunk selected (r = 0.5: chunks 1, 2, 4, 6,
//! ...). It also keeps, per chunk, why a chunk was passed over and whether it was selected
//! before the profile's verdict (speculative). Pure host code: the pipeline driver owns one.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace microsched::pipeline {

class chunk_share {
 public:
  //! Why a chunk has no transformation (or had to wait for one).
  enum class mark : char {
    none,
    skipped,           //!< the share passed it over
    slot_busy,         //!< selected, but every staging slot was busy: considered again
    awaiting_profile,  //!< between a profiled chunk that missed and the next profiled chunk
  };

  //! `chunks` chunks, none considered yet; the credit full.
  void reset(std::size_t chunks) {
    credit_ = 1.0;
    marks_.assign(chunks, mark::none);
    speculative_.assign(chunks, 0);
  }

  //! Chunk `c` considered at share `r`: true when selected. A chunk considered again after
  //! slot_busy() keeps the credit it was given; a chunk passed over is marked skipped.
  bool take(std::size_t c, double r) {
    if (marks_[c] == mark::slot_busy) return true;
    credit_ = std::min(2.0, credit_ + r);
    if (credit_ < 1.0 - 1e-9) {
      marks_[c] = mark::skipped;
      return false;
    }
    credit_ -= 1.0;
    return true;
  }
  //! The selected chunk `c` found no free staging slot (take() selects it again, free of credit).
  void slot_busy(std::size_t c) { marks_[c] = mark::slot_busy; }
  //! Chunk `c` is passed over without being considered (e.g. too late for a remap started now).
  void pass_over(std::size_t c) {
    if (marks_[c] == mark::none) marks_[c] = mark::skipped;
  }
  void await_profile(std::size_t c) { marks_[c] = mark::awaiting_profile; }
  [[nodiscard]] mark at(std::size_t c) const { return marks_[c]; }

  //! Chunk `c` was selected before the profile's verdict: the control does not judge it.
  void set_speculative(std::size_t c) { speculative_[c] = 1; }
  [[nodiscard]] bool speculative(std::size_t c) const { return speculative_[c] != 0; }

 private:
  double credit_ = 1.0;
  std::vector<mark> marks_;
  std::vector<char> speculative_;
};

}  // namespace microsched::pipeline
