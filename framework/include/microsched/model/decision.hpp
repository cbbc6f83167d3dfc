// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file decision.hpp
//! Decisions from the model, before anyone pays for a regrouping (divergence-metrics paper,
//! §VI-B): forecast every regrouping's speedup from the BBVs alone, pick the best, and tell a
//! caller that already knows its kernel time and its remap cost whether a remap can pay.

#include <cstdint>
#include <span>
#include <vector>

#include "microsched/model/bbv.hpp"
#include "microsched/model/metrics.hpp"
#include "microsched/model/regroup.hpp"

namespace microsched::model {

//! One regrouping's order and its estimates.
struct regroup_forecast {
  regroup_method method = regroup_method::original;
  std::vector<std::uint32_t> order;
  double weighted = 0;           //!< BBV-weighted estimate of the order
  double scheduled = 0;          //!< BBV-weighted-scheduled estimate of the order
  double predicted_speedup = 1;  //!< scheduled(original) / scheduled(this order)
  double host_ms = 0;            //!< time the regrouping algorithm took on this host
};

struct regroup_decision {
  std::vector<regroup_forecast> forecasts;  //!< original first, then the methods asked for
  std::size_t best = 0;                     //!< index of the best forecast (0: keep the order)
  [[nodiscard]] const regroup_forecast& chosen() const { return forecasts[best]; }
};

//! Sorting, Greedy and Greedy-Max.
[[nodiscard]] std::span<const regroup_method> default_methods();

//! Forecasts `methods` (original is always included, first) and chooses the one of largest
//! predicted speedup, the original unless a method beats it by more than `min_speedup`.
//! Throws std::invalid_argument on bad BBVs, latencies, shape or options, before any work.
[[nodiscard]] regroup_decision forecast_regroupings(
    const bbv_matrix& bbv, std::span<const double> latency, const gpu_shape& shape,
    const regroup_options& options = {},
    std::span<const regroup_method> methods = default_methods(), double min_speedup = 1.02);

//! The same, with the orders built from `bbv` (predicted BBVs) and rated on `expected`
//! (resample_residuals of the same prediction: what the items may really do). Use this one when
//! the BBVs come from the regression; rating an order on the predictions it was built from
//! promises the gain of a perfect prediction. Throws std::invalid_argument unless both have the
//! same shape and name the same loops (bbv_matrix::loop_of).
[[nodiscard]] regroup_decision forecast_regroupings(
    const bbv_matrix& bbv, const bbv_matrix& expected, std::span<const double> latency,
    const gpu_shape& shape, const regroup_options& options = {},
    std::span<const regroup_method> methods = default_methods(), double min_speedup = 1.02);

//! What a caller knows when it considers a remap (a host pipeline's adaptive control, say).
struct remap_outlook {
  double original_ms = 0;        //!< one launch of the original order (measured)
  double predicted_speedup = 1;  //!< from forecast_regroupings (chosen().predicted_speedup)
  double remap_ms = 0;           //!< what the remap costs on the critical path (0 if hidden)
  int launches_per_remap = 1;    //!< launches that reuse one remap
  double min_gain = 0.005;       //!< the saving must beat this share of the original time
};

//! True when the predicted saving, launches * original_ms * (1 - 1 / speedup), exceeds
//! remap_ms + min_gain * launches * original_ms. Throws std::invalid_argument naming a
//! non-positive time or speedup, a negative cost, or launches < 1.
[[nodiscard]] bool remap_can_pay(const remap_outlook& outlook);

}  // namespace microsched::model
