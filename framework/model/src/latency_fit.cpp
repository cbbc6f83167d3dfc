// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Region latencies fitted to timed launches: non-negative least squares of warp cycles on the
// warps' per-region counts (the model's own warp cost, eqs. 2 and 3, warp_counts). Each warp weighs
// 1 / its cycles: a warp's time varies in proportion to its length (it shares the SM with
// whatever else runs), and unweighted, the few longest warps decide every latency
// (docs/decisions.md, "Fitted region latencies").
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "microsched/config.hpp"
#include "microsched/error.hpp"
#include "microsched/model/latency.hpp"
#include "model_internals.hpp"

namespace microsched::model {

namespace {

void validate(const timed_launch& launch) {
  if (launch.order.empty()) throw_invalid("timed launch size", 0, "must run at least one item");
  for (const std::uint32_t item : launch.order)
    if (item >= launch.cycles.size())
      throw_invalid("timed launch item", item, "has no lane cycles (outside `cycles`)");
}

//! Also every item a row of `bbv`.
void validate(const timed_launch& launch, const bbv_matrix& bbv) {
  validate(launch);
  for (const std::uint32_t item : launch.order)
    if (item >= bbv.items) throw_invalid("timed launch item", item, "is not a BBV row");
}

//! Each warp's longest lane, unchecked.
std::vector<double> longest_lanes(const timed_launch& launch) {
  std::vector<double> cycles((launch.order.size() + warp_size - 1) / warp_size, 0.0);
  for (std::size_t slot = 0; slot < launch.order.size(); ++slot)
    cycles[slot / warp_size] =
        std::max(cycles[slot / warp_size], double(launch.cycles[launch.order[slot]]));
  return cycles;
}

//! The normal equations restricted to the `active` columns; an inactive column gets 0.
std::vector<double> solve_active(const std::vector<double>& gram, const std::vector<double>& rhs,
                                 const std::vector<bool>& active) {
  const std::size_t n = rhs.size();
  std::vector<std::size_t> cols;
  for (std::size_t c = 0; c < n; ++c)
    if (active[c]) cols.push_back(c);
  const std::size_t k = cols.size();
  std::vector<double> a(k * k), b(k);
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t j = 0; j < k; ++j) a[i * k + j] = gram[cols[i] * n + cols[j]];
    b[i] = rhs[cols[i]];
  }
  const auto y = detail::solve_symmetric(std::move(a), std::move(b), k);
  std::vector<double> x(n, 0.0);
  for (std::size_t i = 0; i < k; ++i) x[cols[i]] = y[i];
  return x;
}

}  // namespace

std::vector<double> warp_cycles(const timed_launch& launch) {
  validate(launch);
  return longest_lanes(launch);
}

std::vector<double> fit_latencies(const bbv_matrix& bbv, std::span<const timed_launch> launches) {
  validate(bbv);
  if (launches.empty()) throw_invalid("timed launches", 0, "need at least one");
  for (const auto& l : launches) validate(l, bbv);
  const std::size_t n = bbv.regions;
  std::vector<double> gram(n * n, 0.0), rhs(n, 0.0);
  for (const auto& l : launches) {
    const auto counts = detail::warp_counts(bbv, l.order);
    const auto cycles = longest_lanes(l);
    for (std::size_t w = 0; w < cycles.size(); ++w) {
      const double* m = counts.data() + w * n;
      const double weight = 1.0 / std::max(1.0, cycles[w]);
      for (std::size_t i = 0; i < n; ++i) {
        rhs[i] += weight * m[i] * cycles[w];
        for (std::size_t j = 0; j < n; ++j) gram[i * n + j] += weight * m[i] * m[j];
      }
    }
  }
  // active set: drop the most negative coefficient and solve again, until none is negative
  std::vector<bool> active(n, true);
  for (;;) {
    const auto x = solve_active(gram, rhs, active);
    std::size_t worst = n;
    for (std::size_t r = 0; r < n; ++r)
      if (active[r] && x[r] < 0 && (worst == n || x[r] < x[worst])) worst = r;
    if (worst == n) {
      if (!(std::accumulate(x.begin(), x.end(), 0.0) > 0))
        throw_invalid("timed launches", launches.size(), "give no positive latency");
      return x;
    }
    active[worst] = false;
  }
}

double lone_block_speedup(const timed_launch& full, const timed_launch& lone) {
  validate(full);
  validate(lone);
  std::vector<std::size_t> slot_of(full.cycles.size(), full.order.size());
  for (std::size_t s = 0; s < full.order.size(); ++s) slot_of[full.order[s]] = s;
  const auto in_full = longest_lanes(full), alone = longest_lanes(lone);
  double together = 0, apart = 0;
  for (std::size_t first = 0; first < lone.order.size(); first += warp_size) {
    const std::size_t at = slot_of[lone.order[first]];
    const std::size_t last = std::min(lone.order.size(), first + warp_size);
    bool same =
        at < full.order.size() && at % warp_size == 0 && at + (last - first) <= full.order.size();
    for (std::size_t s = first; same && s < last; ++s)
      same = full.order[at + s - first] == lone.order[s];
    if (!same) throw_invalid("lone launch slot", first, "does not start a warp of the full launch");
    together += in_full[at / warp_size];
    apart += alone[first / warp_size];
  }
  return apart > 0 ? std::max(1.0, together / apart) : 1.0;
}

std::vector<std::uint32_t> lone_blocks(std::span<const std::uint32_t> order, std::size_t blocks,
                                       std::size_t block_threads, std::size_t last_wave_blocks) {
  if (blocks == 0) throw_invalid("blocks", blocks, "must be >= 1");
  if (block_threads == 0 || block_threads % warp_size != 0)
    throw_invalid("block_threads", block_threads, "must be a positive multiple of 32");
  const std::size_t launched = (order.size() + block_threads - 1) / block_threads;
  // the last wave's blocks ran on SMs the tail was emptying: their cycles in the full launch are
  // already faster than full occupancy's, and would bias the ratio towards 1
  const std::size_t total = launched > last_wave_blocks ? launched - last_wave_blocks : launched;
  const std::size_t stride = std::max<std::size_t>(1, total / blocks);
  std::vector<std::uint32_t> out;
  for (std::size_t b = 0; b < total && b / stride < blocks; b += stride) {
    const std::size_t first = b * block_threads;
    const std::size_t last = std::min(order.size(), first + block_threads);
    out.insert(out.end(), order.begin() + static_cast<std::ptrdiff_t>(first),
               order.begin() + static_cast<std::ptrdiff_t>(last));
  }
  return out;
}

}  // namespace microsched::model
