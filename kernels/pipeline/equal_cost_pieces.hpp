// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file equal_cost_pieces.hpp
//! Piece bounds of equal gather cost for a fixed reference pattern (unwrap's polar map): a piece
//! costs its samples plus `line_weight` per distinct 64-byte frame line it reads. The outer rings
//! of a polar map touch ~25x the lines of the inner ones, so pieces of equal size leave the
//! outermost piece ~1.6x the mean cost and every chunk waits for it. Pure host code, tested on the
//! host (test_equal_cost_pieces.cpp).
//!
//! The cut is the smallest cap on a piece's cost for which a greedy cut needs at most `pieces`
//! pieces (bisection). Each greedy sweep must know, for a unit of samples, how many of its lines
//! are new to the piece being cut. With `first_of_line[t]` = 1 + the last sample before t that
//! reads t's line (0: none), a sample's line is new to a piece starting at sample a exactly when
//! first_of_line[t] <= a: a sweep is a sequential count over one array, built once per map, and
//! the bisection starts from the lower bound total cost / pieces. So the cut costs a few ms
//! where a sweep that marks lines in a table (random access to it for every sample, ~30 sweeps
//! from a zero lower bound) held the launching thread for 41-50 ms in a program's first run.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace microsched::pipeline::workloads {

class equal_cost_pieces {
 public:
  //! `map[t]`: the byte address sample t reads, in a frame of `bytes` bytes.
  equal_cost_pieces(std::span<const std::uint32_t> map, std::size_t bytes, double line_weight = 5)
      : n_(map.size()), line_weight_(line_weight), first_of_line_(map.size()) {
    std::vector<std::uint32_t> last((bytes + 63) / 64, 0);  // 1 + last sample seen per line
    for (std::size_t t = 0; t < n_; ++t) {
      std::uint32_t& l = last[map[t] / 64];
      first_of_line_[t] = l;
      l = static_cast<std::uint32_t>(t + 1);
    }
  }

  //! Cost of the samples [b, e) in a piece that starts at sample `a` (a <= b).
  [[nodiscard]] double cost(std::size_t a, std::size_t b, std::size_t e) const {
    const auto start = static_cast<std::uint32_t>(a);  // a sequential count: it vectorises
    std::uint32_t fresh = 0;
    for (std::size_t t = b; t < e; ++t) fresh += first_of_line_[t] <= start ? 1u : 0u;
    return static_cast<double>(e - b) + line_weight_ * static_cast<double>(fresh);
  }

  //! The greedy cut at cap `cap` in units of `g` samples: pieces + 1 bounds (a unit whose cost
  //! would take a piece over the cap opens the next piece).
  [[nodiscard]] std::vector<std::size_t> cut(double cap, std::size_t g) const {
    std::vector<std::size_t> bounds{0};
    std::size_t a = 0;
    double sum = 0;
    for (std::size_t b = 0; b < n_; b += g) {
      const std::size_t e = std::min(n_, b + g);
      const double c = cost(a, b, e);
      if (sum > 0 && sum + c > cap) {
        bounds.push_back(b);
        a = b;
        sum = cost(a, b, e);
      } else {
        sum += c;
      }
    }
    bounds.push_back(n_);
    return bounds;
  }

  //! `pieces` + 1 bounds of nearly equal cost, inner ones multiples of `g`; empty when the map has
  //! fewer units of g samples than pieces, or no such cut exists.
  [[nodiscard]] std::vector<std::size_t> bounds(std::size_t pieces, std::size_t g) const {
    const std::size_t units = (n_ + g - 1) / g;
    if (pieces < 1 || g == 0 || units < pieces) return {};
    auto fits = [&](double cap) { return cut(cap, g).size() <= pieces + 1; };
    // Every line is new to some piece, so the pieces' costs add up to the one-piece cost at
    // least: a cap below total / pieces never fits.
    const double total = cost(0, 0, n_);
    double lo = std::max(0.0, total / static_cast<double>(pieces) - 1);
    double hi = total + static_cast<double>(units);              // one piece: a cap that fits
    for (double step = lo / 8 + 1; lo + step < hi; step *= 2) {  // a close cap that fits
      if (fits(lo + step)) {
        hi = lo + step;
        break;
      }
      lo += step;
    }
    for (int k = 0; k < 60 && hi - lo > 1; ++k) {
      const double mid = (lo + hi) / 2;
      (fits(mid) ? hi : lo) = mid;
    }
    std::vector<std::size_t> b = cut(hi, g);
    while (b.size() < pieces + 1) {  // fewer pieces than asked: halve the widest
      std::size_t widest = 0;
      for (std::size_t k = 1; k + 1 < b.size(); ++k)
        if (b[k + 1] - b[k] > b[widest + 1] - b[widest]) widest = k;
      const std::size_t half = (b[widest] + b[widest + 1]) / 2 / g * g;
      if (half <= b[widest]) return {};
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(widest) + 1, half);
    }
    return b;
  }

 private:
  std::size_t n_;
  double line_weight_;
  std::vector<std::uint32_t> first_of_line_;
};

}  // namespace microsched::pipeline::workloads
