// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Helpers shared by the model library's sources (model_internals.hpp).
#include "model_internals.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include "microsched/config.hpp"

namespace microsched::model::detail {

std::vector<double> solve_symmetric(std::vector<double> a, std::vector<double> rhs, std::size_t k) {
  std::vector<double> x(k, 0.0);
  std::vector<bool> used(k, false);
  double scale = 0;
  for (std::size_t i = 0; i < k; ++i) scale = std::max(scale, std::abs(a[i * k + i]));
  const double tiny = 1e-12 * std::max(scale, 1.0);
  std::vector<std::size_t> pivot_of(k, k);
  for (std::size_t col = 0; col < k; ++col) {
    std::size_t best = k;
    for (std::size_t r = 0; r < k; ++r)
      if (!used[r] && (best == k || std::abs(a[r * k + col]) > std::abs(a[best * k + col])))
        best = r;
    if (best == k || std::abs(a[best * k + col]) <= tiny) continue;
    used[best] = true;
    pivot_of[col] = best;
    const double p = a[best * k + col];
    for (std::size_t r = 0; r < k; ++r) {
      if (r == best) continue;
      const double f = a[r * k + col] / p;
      if (f == 0) continue;
      for (std::size_t c = 0; c < k; ++c) a[r * k + c] -= f * a[best * k + c];
      rhs[r] -= f * rhs[best];
    }
  }
  for (std::size_t col = 0; col < k; ++col)
    if (pivot_of[col] != k) x[col] = rhs[pivot_of[col]] / a[pivot_of[col] * k + col];
  return x;
}

namespace {

//! Expected iterations in which at least one lane takes a branch: lane i runs its loop n_i times
//! and takes the branch in c_i of them, at random. While the lanes with n_i > t run iteration t,
//! the branch is skipped with probability prod (1 - c_i / n_i) over them; summed over t.
double expected_union(std::vector<std::pair<std::uint32_t, double>>& lanes) {
  // (iterations, probability of skipping); the longest first, so the running product covers the
  // lanes still in the loop while t falls from one lane's end to the next one's
  std::ranges::sort(lanes, std::greater<>{});
  double skip = 1, sum = 0;
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    skip *= lanes[i].second;
    const std::uint32_t below = i + 1 < lanes.size() ? lanes[i + 1].first : 0u;
    sum += (1 - skip) * double(lanes[i].first - below);
  }
  return sum;
}

}  // namespace

std::vector<double> warp_counts(const bbv_matrix& bbv, std::span<const std::uint32_t> order) {
  const std::size_t slots = order.empty() ? bbv.items : order.size();
  const std::size_t regions = bbv.regions;
  std::vector<double> out(((slots + warp_size - 1) / warp_size) * regions, 0.0);
  std::vector<std::pair<std::uint32_t, double>> lanes;
  for (std::size_t first = 0; first < slots; first += warp_size) {
    const std::size_t last = std::min(slots, first + warp_size);
    double* w = out.data() + (first / warp_size) * regions;
    for (std::size_t r = 0; r < regions; ++r) {
      const std::int32_t loop = bbv.loop(r);
      lanes.clear();
      std::uint32_t max = 0;
      for (std::size_t s = first; s < last; ++s) {
        const auto row = bbv.row(order.empty() ? s : order[s]);
        max = std::max(max, row[r]);
        if (loop >= 0 && row[static_cast<std::size_t>(loop)] > 0) {
          const std::uint32_t n = row[static_cast<std::size_t>(loop)];
          lanes.emplace_back(n, 1.0 - std::min(1.0, double(row[r]) / n));
        }
      }
      // the expected union is at least the largest count; a lane that counts the branch more
      // often than its loop (or outside it) keeps eq. 2's value
      w[r] = loop < 0 ? double(max) : std::max(double(max), expected_union(lanes));
    }
  }
  return out;
}

}  // namespace microsched::model::detail
