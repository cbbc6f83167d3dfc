// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The regression's residuals put back into predicted BBVs, drawn from the sample items whose
// predictions are nearest (see regression.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "microsched/error.hpp"
#include "microsched/model/regression.hpp"

namespace microsched::model {

bbv_matrix resample_residuals(const bbv_matrix& predicted,
                              std::span<const std::uint32_t> sample_items,
                              const bbv_matrix& sample_counts, std::span<const double> latency,
                              const residual_options& options) {
  validate(predicted);
  validate(sample_counts);
  validate_latency(predicted, latency);
  if (sample_items.size() != sample_counts.items)
    throw_invalid("sample items", sample_items.size(), "must equal the sample's BBV rows");
  if (sample_counts.regions != predicted.regions)
    throw_invalid("sample regions", sample_counts.regions, "must equal the predicted regions");
  if (options.neighbours == 0) throw_invalid("neighbours", options.neighbours, "must be >= 1");
  for (const std::uint32_t item : sample_items)
    if (item >= predicted.items) throw_invalid("sample item", item, "is not a predicted row");
  const std::size_t regions = predicted.regions;
  const std::size_t k = std::min(options.neighbours, sample_items.size());
  std::vector<double> residual(sample_items.size() * regions);
  for (std::size_t s = 0; s < sample_items.size(); ++s)
    for (std::size_t r = 0; r < regions; ++r)
      residual[s * regions + r] =
          double(sample_counts.row(s)[r]) - double(predicted.row(sample_items[s])[r]);
  // the k nearest sample rows of every distinct predicted row, found once
  std::map<std::vector<std::uint32_t>, std::vector<std::uint32_t>> nearest;
  std::vector<std::pair<double, std::uint32_t>> distance(sample_items.size());
  const auto neighbours_of = [&](std::span<const std::uint32_t> row) {
    for (std::size_t s = 0; s < sample_items.size(); ++s) {
      const auto other = predicted.row(sample_items[s]);
      double d = 0;
      for (std::size_t r = 0; r < regions; ++r) {
        const double x = (double(row[r]) - double(other[r])) * latency[r];
        d += x * x;
      }
      distance[s] = {d, static_cast<std::uint32_t>(s)};
    }
    std::nth_element(distance.begin(), distance.begin() + static_cast<std::ptrdiff_t>(k - 1),
                     distance.end());
    std::vector<std::uint32_t> picked(k);
    for (std::size_t i = 0; i < k; ++i) picked[i] = distance[i].second;
    return picked;
  };
  bbv_matrix out(predicted.items, regions);
  out.loop_of = predicted.loop_of;
  std::mt19937_64 rng(options.seed);
  std::vector<std::uint32_t> key(regions);
  for (std::size_t item = 0; item < predicted.items; ++item) {
    const auto row = predicted.row(item);
    std::copy(row.begin(), row.end(), key.begin());
    auto it = nearest.find(key);
    if (it == nearest.end()) it = nearest.emplace(key, neighbours_of(row)).first;
    const std::uint32_t s = it->second[rng() % k];
    for (std::size_t r = 0; r < regions; ++r)
      out.row(item)[r] = static_cast<std::uint32_t>(
          std::max(0.0, std::round(double(row[r]) + residual[s * regions + r])));
  }
  return out;
}

}  // namespace microsched::model
