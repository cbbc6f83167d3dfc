// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <algorithm>
#include <utility>
#include <vector>

#include "microsched/error.hpp"
#include "microsched/model/regroup.hpp"

namespace microsched::model {

namespace {

//! Positions of a list that are still unused: next(p) is the first unused position >= p, with
//! path compression, so taking items anywhere in the list keeps scans near O(1) per step.
class unused_positions {
 public:
  explicit unused_positions(std::size_t n) : next_(n + 1) {
    for (std::size_t i = 0; i <= n; ++i) next_[i] = i;
  }
  [[nodiscard]] std::size_t next(std::size_t p) {
    std::size_t root = p;
    while (next_[root] != root) root = next_[root];
    while (next_[p] != root) p = std::exchange(next_[p], root);
    return root;
  }
  void take(std::size_t p) { next_[p] = p + 1; }

 private:
  std::vector<std::size_t> next_;  // (position) -> a later position, n is the end
};

}  // namespace

std::vector<std::uint32_t> greedy_max_order(const bbv_matrix& bbv, std::span<const double> latency,
                                            const regroup_options& options) {
  validate(bbv);
  validate_latency(bbv, latency);
  validate(options);
  const auto list = detail::latency_order(bbv, latency);  // descending latency, equal BBVs adjacent
  const std::size_t n = list.size(), gs = static_cast<std::size_t>(options.groupsize);
  const auto row_at = [&](std::size_t p) { return bbv.row(list[p]); };
  std::vector<std::size_t> run_end(n);  // (position) -> end of its run of identical BBVs
  for (std::size_t p = n; p-- > 0;) {
    const bool same = p + 1 < n && std::ranges::equal(row_at(p), row_at(p + 1));
    run_end[p] = same ? run_end[p + 1] : p + 1;
  }
  unused_positions unused(n);
  std::vector<std::uint32_t> order;
  order.reserve(n);
  std::vector<std::size_t> open_runs;  // positions in the runs of the group's members
  while (order.size() < n) {
    group_extent extent(bbv.regions);
    std::size_t size = 0;
    const auto take = [&](std::size_t p) {
      unused.take(p);
      order.push_back(list[p]);
      extent.add(row_at(p));
      open_runs.push_back(p);
      ++size;
    };
    take(unused.next(0));  // the seed: the largest latency left
    while (size < gs && order.size() < n) {
      std::size_t pick = n;
      while (!open_runs.empty() && pick == n) {  // an item identical to a member, if any is left
        const std::size_t member = open_runs.back();
        const std::size_t p = unused.next(member);
        if (p < run_end[member]) {
          pick = p;
        } else {
          open_runs.pop_back();
        }
      }
      if (pick == n) {  // else the best gain among the next `window` items in latency order
        double best = 0;
        std::size_t p = unused.next(0);
        for (int k = 0; k < options.window && p < n; ++k, p = unused.next(p + 1)) {
          const double g = gain_with(extent, row_at(p), latency);
          if (pick == n || g > best) best = g, pick = p;
        }
      }
      take(pick);
    }
    open_runs.clear();
  }
  return order;
}

}  // namespace microsched::model
