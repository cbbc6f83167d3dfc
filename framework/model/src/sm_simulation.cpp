// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The SM simulation behind BBV-weighted-scheduled: blocks go to SMs in launch order, each SM
// shares its throughput among its resident warps (processor sharing on a saturating curve).
#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <tuple>
#include <vector>

#include "microsched/error.hpp"
#include "microsched/model/metrics.hpp"

namespace microsched::model {

namespace {

struct resident_warp {
  double remaining;  // cycles of work left at full-occupancy speed
  std::size_t block;
};

struct sm_state {
  std::vector<resident_warp> warps;
  double clock = 0;           // time up to which `warps` have been advanced
  std::uint64_t version = 0;  // bumped when the next event time changes
};

}  // namespace

double simulate_sms(std::span<const double> costs, int warps_per_block, const gpu_shape& shape) {
  validate(shape);
  if (warps_per_block < 1) throw_invalid("warps_per_block", warps_per_block, "must be >= 1");
  if (costs.empty()) return 0;
  const std::size_t per_block = static_cast<std::size_t>(warps_per_block);
  const std::size_t blocks = (costs.size() + per_block - 1) / per_block;
  const double full = double(shape.blocks_per_sm) * warps_per_block;  // warps at full occupancy
  const double lone = shape.lone_block_speedup;
  // A warp's speed with k warps resident: the SM's throughput rises with k and saturates, as
  // latency hiding does, T(k) = k (1 + a) / (k + full a) of a full SM's, so a warp runs
  // T(k) full / k = full (1 + a) / (k + full a) times its full-occupancy speed. `a` puts one
  // block's warps at the measured lone-block speed. A piecewise line (full throughput down to
  // full / lone warps, then falling) overstates how fast the warps of a half-emptied SM run
  // (docs/decisions.md, "The SM occupancy curve"). Where one block is as fast as a full SM or
  // no faster alone, the line is exact.
  const double a = lone > 1 ? (full - lone * warps_per_block) / (full * (lone - 1)) : 0.0;
  const auto rate = [&](std::size_t resident) {
    if (resident == 0) return 0.0;
    if (a > 0) return full * (1 + a) / (double(resident) + full * a);
    return std::min(lone, full / double(resident));
  };
  std::vector<sm_state> sms(static_cast<std::size_t>(shape.sm_count));
  std::vector<int> unfinished(blocks, 0);
  std::size_t next_block = 0;
  const auto admit = [&](sm_state& sm) {  // the next block in launch order joins `sm`
    const std::size_t b = next_block++;
    const std::size_t first = b * per_block, last = std::min(costs.size(), first + per_block);
    for (std::size_t w = first; w < last; ++w) sm.warps.push_back({costs[w], b});
    unfinished[b] = static_cast<int>(last - first);
  };
  // events: (time of the SM's next warp completion, sm, version, work its warps do until then),
  // earliest first. The work is carried, not recomputed from the times: late in a long launch
  // the clock is large and a small difference of times would round to no progress at all.
  using event = std::tuple<double, std::size_t, std::uint64_t, double>;
  std::priority_queue<event, std::vector<event>, std::greater<>> events;
  const auto schedule = [&](std::size_t s) {
    sm_state& sm = sms[s];
    ++sm.version;
    if (sm.warps.empty()) return;
    double least = std::numeric_limits<double>::infinity();
    for (const auto& w : sm.warps) least = std::min(least, w.remaining);
    events.emplace(sm.clock + least / rate(sm.warps.size()), s, sm.version, least);
  };
  // first wave: round robin over the SMs, blocks_per_sm each
  for (int round = 0; round < shape.blocks_per_sm; ++round)
    for (std::size_t s = 0; s < sms.size() && next_block < blocks; ++s) admit(sms[s]);
  for (std::size_t s = 0; s < sms.size(); ++s) schedule(s);
  double makespan = 0;
  while (!events.empty()) {
    const auto [time, s, version, advance] = events.top();
    events.pop();
    sm_state& sm = sms[s];
    if (version != sm.version) continue;
    sm.clock = time;
    makespan = std::max(makespan, time);
    const double eps = 1e-12 * advance;  // the warp that set `advance` ends exactly
    std::size_t freed = 0;
    std::erase_if(sm.warps, [&](resident_warp& w) {
      w.remaining -= advance;
      if (w.remaining > eps) return false;
      if (--unfinished[w.block] == 0) ++freed;
      return true;
    });
    for (; freed > 0 && next_block < blocks; --freed) admit(sm);
    schedule(s);
  }
  return makespan;
}

}  // namespace microsched::model
