// Helpers shared by the model library's sources (model_internals.hpp).
#include "model_internals.hpp"

#include <algorithm>
#include <cmath>

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

std::vector<std::uint32_t> warp_maxima(const bbv_matrix& bbv,
                                       std::span<const std::uint32_t> order) {
  const std::size_t slots = order.empty() ? bbv.items : order.size();
  std::vector<std::uint32_t> max(((slots + warp_size - 1) / warp_size) * bbv.regions, 0u);
  for (std::size_t slot = 0; slot < slots; ++slot) {
    const auto row = bbv.row(order.empty() ? slot : order[slot]);
    std::uint32_t* m = max.data() + (slot / warp_size) * bbv.regions;
    for (std::size_t r = 0; r < bbv.regions; ++r) m[r] = std::max(m[r], row[r]);
  }
  return max;
}

}  // namespace microsched::model::detail
