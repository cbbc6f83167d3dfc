// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/model/regression.hpp"

#include <cmath>

#include "microsched/error.hpp"
#include "model_internals.hpp"

namespace microsched::model {

namespace {

void validate(const feature_matrix& f) {
  if (f.items == 0) throw_invalid("feature items", f.items, "need at least one item");
  if (f.values.size() != f.items * f.features)
    throw_invalid("feature values size", f.values.size(), "must equal items * features");
}

}  // namespace

double bbv_regression::predict(std::size_t region, std::span<const double> feature_row,
                               std::size_t item) const {
  const std::size_t k = features + 2;
  const double* b = beta.data() + region * k;
  double v = b[0];
  for (std::size_t f = 0; f < features; ++f) v += b[f + 1] * feature_row[f];
  return v + b[features + 1] * static_cast<double>(item);
}

bbv_regression fit_bbv_regression(const feature_matrix& sample_features,
                                  std::span<const std::uint32_t> sample_items,
                                  const bbv_matrix& sample_counts) {
  validate(sample_features);
  model::validate(sample_counts);
  if (sample_items.size() != sample_features.items)
    throw_invalid("sample_items size", sample_items.size(), "must equal the sample's feature rows");
  if (sample_counts.items != sample_features.items)
    throw_invalid("sample_counts items", sample_counts.items,
                  "must equal the sample's feature rows");
  const std::size_t n = sample_features.items, p = sample_features.features, k = p + 2;
  // Columns are centred and scaled (item ids reach millions, features are small), so the
  // normal equations stay well conditioned; the coefficients are mapped back afterwards.
  const auto column = [&](std::size_t i, std::size_t c) {
    return c == 0 ? 1.0 : c <= p ? sample_features.at(i, c - 1) : double(sample_items[i]);
  };
  std::vector<double> mean(k, 0.0), spread(k, 1.0);
  for (std::size_t c = 1; c < k; ++c) {
    double s = 0, s2 = 0;
    for (std::size_t i = 0; i < n; ++i) s += column(i, c);
    mean[c] = s / double(n);
    for (std::size_t i = 0; i < n; ++i) s2 += (column(i, c) - mean[c]) * (column(i, c) - mean[c]);
    spread[c] = std::sqrt(s2 / double(n));
  }
  const auto z = [&](std::size_t i, std::size_t c) {
    return c == 0 ? 1.0 : spread[c] > 0 ? (column(i, c) - mean[c]) / spread[c] : 0.0;
  };
  std::vector<double> gram(k * k, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t r = 0; r < k; ++r)
      for (std::size_t c = 0; c < k; ++c) gram[r * k + c] += z(i, r) * z(i, c);
  bbv_regression model{sample_counts.regions, p,
                       std::vector<double>(sample_counts.regions * k, 0.0), sample_counts.loop_of};
  for (std::size_t b = 0; b < sample_counts.regions; ++b) {
    std::vector<double> rhs(k, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t r = 0; r < k; ++r) rhs[r] += z(i, r) * sample_counts.at(i, b);
    const auto w = detail::solve_symmetric(gram, rhs, k);
    double* beta = model.beta.data() + b * k;
    beta[0] = w[0];
    for (std::size_t c = 1; c < k; ++c) {
      beta[c] = spread[c] > 0 ? w[c] / spread[c] : 0.0;
      beta[0] -= beta[c] * mean[c];
    }
  }
  return model;
}

feature_matrix select_rows(const feature_matrix& all, std::span<const std::uint32_t> items) {
  validate(all);
  feature_matrix out{items.size(), all.features, {}};
  out.values.reserve(items.size() * all.features);
  for (const std::uint32_t item : items) {
    if (item >= all.items) throw_invalid("sample item", item, "is not an item of the features");
    for (std::size_t f = 0; f < all.features; ++f) out.values.push_back(all.at(item, f));
  }
  return out;
}

bbv_matrix predict_bbvs(const bbv_regression& model, const feature_matrix& features) {
  validate(features);
  if (features.features != model.features)
    throw_invalid("features per item", features.features, "must equal the fitted model's");
  bbv_matrix out(features.items, model.regions);
  out.loop_of = model.loop_of;
  for (std::size_t i = 0; i < features.items; ++i) {
    const std::span<const double> row(features.values.data() + i * features.features,
                                      features.features);
    for (std::size_t b = 0; b < model.regions; ++b)
      out.counts[i * model.regions + b] =
          static_cast<std::uint32_t>(std::lround(std::max(0.0, model.predict(b, row, i))));
  }
  return out;
}

double mean_abs_error(const bbv_matrix& predicted, const bbv_matrix& exact) {
  model::validate(exact);
  if (predicted.items != exact.items || predicted.regions != exact.regions)
    throw_invalid("predicted items", predicted.items, "must match the exact BBVs' shape");
  double sum = 0;
  for (std::size_t i = 0; i < exact.counts.size(); ++i)
    sum += std::abs(double(predicted.counts[i]) - double(exact.counts[i]));
  return sum / double(exact.counts.size());
}

}  // namespace microsched::model
