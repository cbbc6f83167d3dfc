// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/model/decision.hpp"

#include <chrono>
#include <cmath>

#include "microsched/error.hpp"

namespace microsched::model {

std::span<const regroup_method> default_methods() {
  static constexpr regroup_method all[] = {regroup_method::sorting, regroup_method::greedy,
                                           regroup_method::greedy_max};
  return all;
}

regroup_decision forecast_regroupings(const bbv_matrix& bbv, std::span<const double> latency,
                                      const gpu_shape& shape, const regroup_options& options,
                                      std::span<const regroup_method> methods, double min_speedup) {
  return forecast_regroupings(bbv, bbv, latency, shape, options, methods, min_speedup);
}

regroup_decision forecast_regroupings(const bbv_matrix& bbv, const bbv_matrix& expected,
                                      std::span<const double> latency, const gpu_shape& shape,
                                      const regroup_options& options,
                                      std::span<const regroup_method> methods, double min_speedup) {
  validate(bbv);
  validate_latency(bbv, latency);
  validate(expected);
  if (expected.items != bbv.items || expected.regions != bbv.regions)
    throw_invalid("expected BBV rows", expected.items, "must have the shape of the predicted BBVs");
  for (std::size_t r = 0; r < bbv.regions; ++r)
    if (expected.loop(r) != bbv.loop(r))
      throw_invalid("expected BBV loop_of of region", r,
                    "must name the predicted BBVs' loop (resample_residuals keeps it)");
  validate(shape);
  validate(options);
  if (!(min_speedup > 0)) throw_invalid("min_speedup", min_speedup, "must be > 0");
  regroup_decision decision;
  const auto add = [&](regroup_method method) {
    regroup_forecast f;
    f.method = method;
    const auto start = std::chrono::steady_clock::now();
    f.order = regroup(method, bbv, latency, options);
    f.host_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    f.weighted = bbv_weighted(expected, latency, f.order, shape);
    f.scheduled = bbv_weighted_scheduled(expected, latency, f.order, shape);
    decision.forecasts.push_back(std::move(f));
  };
  add(regroup_method::original);
  for (const regroup_method m : methods)
    if (m != regroup_method::original) add(m);
  const double base = decision.forecasts.front().scheduled;
  double best = min_speedup;
  for (std::size_t i = 0; i < decision.forecasts.size(); ++i) {
    auto& f = decision.forecasts[i];
    f.predicted_speedup = f.scheduled > 0 ? base / f.scheduled : 1.0;
    if (i > 0 && f.predicted_speedup > best) best = f.predicted_speedup, decision.best = i;
  }
  return decision;
}

bool remap_can_pay(const remap_outlook& o) {
  if (!(o.original_ms > 0) || !std::isfinite(o.original_ms))
    throw_invalid("original_ms", o.original_ms, "must be a positive time");
  if (!(o.predicted_speedup > 0) || !std::isfinite(o.predicted_speedup))
    throw_invalid("predicted_speedup", o.predicted_speedup, "must be > 0");
  if (!(o.remap_ms >= 0) || !std::isfinite(o.remap_ms))
    throw_invalid("remap_ms", o.remap_ms, "must be >= 0");
  if (o.launches_per_remap < 1)
    throw_invalid("launches_per_remap", o.launches_per_remap, "must be >= 1");
  if (!(o.min_gain >= 0)) throw_invalid("min_gain", o.min_gain, "must be >= 0");
  const double original = o.launches_per_remap * o.original_ms;
  const double saving = original * (1.0 - 1.0 / o.predicted_speedup);
  return saving > o.remap_ms + o.min_gain * original;
}

}  // namespace microsched::model
