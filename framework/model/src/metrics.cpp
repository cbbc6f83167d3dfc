// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/model/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>

#include "microsched/config.hpp"
#include "microsched/error.hpp"
#include "model_internals.hpp"

namespace microsched::model {

void validate(const gpu_shape& shape) {
  if (shape.sm_count < 1) throw_invalid("sm_count", shape.sm_count, "must be >= 1");
  if (shape.blocks_per_sm < 1) throw_invalid("blocks_per_sm", shape.blocks_per_sm, "must be >= 1");
  if (shape.threads_per_block < warp_size || shape.threads_per_block % warp_size != 0)
    throw_invalid("threads_per_block", shape.threads_per_block,
                  "must be a positive multiple of 32");
  if (!(shape.lone_block_speedup >= 1.0) || !std::isfinite(shape.lone_block_speedup))
    throw_invalid("lone_block_speedup", shape.lone_block_speedup, "must be finite and >= 1");
}

void validate_order(std::span<const std::uint32_t> order, std::size_t items) {
  if (order.size() != items)
    throw_invalid("order size", order.size(), "must equal the number of items");
  std::vector<bool> seen(items, false);
  for (const std::uint32_t item : order) {
    if (item >= items) throw_invalid("order entry", item, "is not an item index");
    if (seen[item]) throw_invalid("order entry", item, "appears twice: not a permutation");
    seen[item] = true;
  }
}

std::vector<std::uint32_t> identity_order(std::size_t items) {
  std::vector<std::uint32_t> order(items);
  std::iota(order.begin(), order.end(), 0u);
  return order;
}

std::vector<double> warp_costs(const bbv_matrix& bbv, std::span<const double> latency,
                               std::span<const std::uint32_t> order) {
  validate(bbv);
  validate_latency(bbv, latency);
  if (!order.empty()) validate_order(order, bbv.items);
  const auto counts = detail::warp_counts(bbv, order);  // eq. 2, or the loop's union
  std::vector<double> costs(counts.size() / bbv.regions, 0.0);
  for (std::size_t w = 0; w < costs.size(); ++w)  // eq. 3
    for (std::size_t r = 0; r < bbv.regions; ++r)
      costs[w] += latency[r] * counts[w * bbv.regions + r];
  return costs;
}

std::vector<double> warp_counts(const bbv_matrix& bbv, std::span<const std::uint32_t> order) {
  validate(bbv);
  if (!order.empty()) validate_order(order, bbv.items);
  return detail::warp_counts(bbv, order);
}

std::vector<double> block_costs(const bbv_matrix& bbv, std::span<const double> latency,
                                std::span<const std::uint32_t> order, int threads_per_block) {
  if (threads_per_block < warp_size || threads_per_block % warp_size != 0)
    throw_invalid("threads_per_block", threads_per_block, "must be a positive multiple of 32");
  const auto warps = warp_costs(bbv, latency, order);
  const std::size_t per_block = static_cast<std::size_t>(threads_per_block / warp_size);
  std::vector<double> costs((warps.size() + per_block - 1) / per_block, 0.0);
  for (std::size_t w = 0; w < warps.size(); ++w) costs[w / per_block] += warps[w];  // eq. 4
  return costs;
}

double bbv_weighted(const bbv_matrix& bbv, std::span<const double> latency,
                    std::span<const std::uint32_t> order, const gpu_shape& shape) {
  validate(shape);
  const auto costs = block_costs(bbv, latency, order, shape.threads_per_block);
  return std::accumulate(costs.begin(), costs.end(), 0.0) / shape.sm_count;
}

double round_robin_makespan(std::span<const double> costs, int places) {
  if (places < 1) throw_invalid("places", places, "must be >= 1");
  // Finish times of the busy places; a block starts where the earliest one frees.
  std::priority_queue<double, std::vector<double>, std::greater<>> busy;
  double makespan = 0;
  for (const double c : costs) {
    double start = 0;
    if (busy.size() == static_cast<std::size_t>(places)) {
      start = busy.top();
      busy.pop();
    }
    busy.push(start + c);
    makespan = std::max(makespan, start + c);
  }
  return makespan;
}

double bbv_weighted_scheduled(const bbv_matrix& bbv, std::span<const double> latency,
                              std::span<const std::uint32_t> order, const gpu_shape& shape) {
  validate(shape);
  const auto costs = warp_costs(bbv, latency, order);
  const int per_block = shape.threads_per_block / warp_size;
  return simulate_sms(costs, per_block, shape) * per_block * shape.blocks_per_sm;
}

}  // namespace microsched::model
