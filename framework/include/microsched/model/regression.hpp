// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file regression.hpp
//! BBV estimation by regression (divergence-metrics paper, eq. 1): each region's count is a
//! linear function of a few per-item input features and the item (thread) id,
//!   count[b] = beta0 + beta1 * feature[1] + ... + betap * feature[p] + beta(p+1) * item,
//! fitted by least squares on an instrumented sample of items. The model then predicts the BBVs
//! of the whole input from its features alone, so only the sample runs instrumented. Features
//! are what the kernel's loop bounds and branch conditions read (a voxel's vertex count, a
//! read's length); the fit is exact where the counts are linear in them.

#include <cstdint>
#include <span>
#include <vector>

#include "microsched/model/bbv.hpp"

namespace microsched::model {

//! Per-item features, row-major (item, feature).
struct feature_matrix {
  std::size_t items = 0;
  std::size_t features = 0;
  std::vector<double> values;

  [[nodiscard]] double at(std::size_t item, std::size_t f) const {
    return values[item * features + f];
  }
};

//! Fitted coefficients of every region: beta[region * (features + 2) + k], k = 0 the intercept,
//! 1..features the features, features + 1 the item id.
struct bbv_regression {
  std::size_t regions = 0;
  std::size_t features = 0;
  std::vector<double> beta;
  std::vector<std::int32_t> loop_of;  //!< the sample's bbv_matrix::loop_of, kept by predict_bbvs

  //! Predicted count of one region for an item (unrounded).
  [[nodiscard]] double predict(std::size_t region, std::span<const double> feature_row,
                               std::size_t item) const;
};

//! Fits eq. 1 for every region. `sample_items[i]` is the item id of sample row i; row i of
//! `sample_features` and of `sample_counts` belong to it. Columns that do not vary in the sample
//! get a zero coefficient. Throws std::invalid_argument on empty or mismatched input.
[[nodiscard]] bbv_regression fit_bbv_regression(const feature_matrix& sample_features,
                                                std::span<const std::uint32_t> sample_items,
                                                const bbv_matrix& sample_counts);

//! BBVs of all items 0..features.items-1 (rounded to the nearest count, negatives to 0).
[[nodiscard]] bbv_matrix predict_bbvs(const bbv_regression& model, const feature_matrix& features);

//! The rows of `all` at `items` (a sample's features).
[[nodiscard]] feature_matrix select_rows(const feature_matrix& all,
                                         std::span<const std::uint32_t> items);

//! Options of resample_residuals.
struct residual_options {
  //! Sample items an item may borrow its residual from: the nearest by predicted BBV. Enough
  //! that the 32 draws of a warp rarely repeat a value (the model charges a warp its largest
  //! count, so a handful of values would cut the tail), few enough to stay among items that
  //! behave alike. 128 = 4 warps; docs/performance-model.md shows 64 and 256 beside it.
  std::size_t neighbours = 128;
  std::uint64_t seed = 1;  //!< the draws are reproducible for a seed
};

//! BBVs as the model should rate an order built from predicted BBVs: every item's predicted row
//! plus the residual (exact - predicted) of a sample item drawn among the `neighbours` sample
//! items whose predicted rows are nearest (Euclidean, each region weighted by its latency),
//! clamped at 0. An order sorted on predicted BBVs groups items alike in their prediction, not in
//! their real counts; rating it on the predictions alone promises the gain of a perfect
//! prediction (docs/decisions.md, "Resampled residuals"). Cost: one
//! scan of the sample per distinct predicted row. `sample_items[k]` is the item of row k of
//! `sample_counts` (its exact counts). Throws std::invalid_argument on empty or mismatched input,
//! a sample item outside `predicted`, or neighbours == 0.
[[nodiscard]] bbv_matrix resample_residuals(const bbv_matrix& predicted,
                                            std::span<const std::uint32_t> sample_items,
                                            const bbv_matrix& sample_counts,
                                            std::span<const double> latency,
                                            const residual_options& options = {});

//! Mean absolute difference per count between two BBV matrices of equal shape.
[[nodiscard]] double mean_abs_error(const bbv_matrix& predicted, const bbv_matrix& exact);

}  // namespace microsched::model
