// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/model/regroup.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <tuple>

#include "microsched/config.hpp"
#include "microsched/error.hpp"

namespace microsched::model {

std::string_view to_string(regroup_method method) {
  switch (method) {
    case regroup_method::original:
      return "original";
    case regroup_method::sorting:
      return "sorting";
    case regroup_method::greedy:
      return "greedy";
    case regroup_method::greedy_max:
      return "greedy_max";
  }
  return "unknown";
}

void validate(const regroup_options& options) {
  if (options.groupsize < warp_size || options.groupsize % warp_size != 0)
    throw_invalid("groupsize", options.groupsize, "must be a positive multiple of 32");
  if (options.window < 1) throw_invalid("window", options.window, "must be >= 1");
}

std::vector<std::uint32_t> sorting_order(const bbv_matrix& bbv) {
  validate(bbv);
  std::vector<std::uint32_t> order(bbv.items);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return lexicographic_less(bbv.row(a), bbv.row(b));
  });
  return order;
}

namespace detail {
std::vector<std::uint32_t> latency_order(const bbv_matrix& bbv, std::span<const double> latency) {
  std::vector<double> lat(bbv.items);
  for (std::size_t i = 0; i < bbv.items; ++i) lat[i] = thread_latency(bbv.row(i), latency);
  std::vector<std::uint32_t> order(bbv.items);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (lat[a] != lat[b]) return lat[a] > lat[b];
    return lexicographic_less(bbv.row(a), bbv.row(b));
  });
  return order;
}
}  // namespace detail

namespace {

constexpr std::size_t npos = static_cast<std::size_t>(-1);

//! The groups of Algorithm 1 in flat arrays (no allocation per merge): group g starts as the
//! item at position g of the candidate list; its items form a linked list (head .. tail), its
//! extent is min/max[g * regions + b], and prev/next link the live groups in list order.
struct greedy_groups {
  std::size_t regions;
  std::vector<std::uint32_t> head, tail, size, next_item, min, max;
  std::vector<std::size_t> prev, next;
  std::vector<std::uint32_t> version;  // bumped on every change, so stale heap entries are skipped
  std::vector<bool> alive;

  greedy_groups(const bbv_matrix& bbv, std::span<const std::uint32_t> list)
      : regions(bbv.regions),
        head(list.begin(), list.end()),
        tail(list.begin(), list.end()),
        size(list.size(), 1),
        next_item(bbv.items, 0),
        min(list.size() * bbv.regions),
        max(list.size() * bbv.regions),
        prev(list.size()),
        next(list.size()),
        version(list.size(), 0),
        alive(list.size(), true) {
    for (std::size_t g = 0; g < list.size(); ++g) {
      std::ranges::copy(bbv.row(list[g]), min.begin() + static_cast<std::ptrdiff_t>(g * regions));
      std::ranges::copy(bbv.row(list[g]), max.begin() + static_cast<std::ptrdiff_t>(g * regions));
      prev[g] = g == 0 ? npos : g - 1;
      next[g] = g + 1 == list.size() ? npos : g + 1;
    }
  }
  //! Gain (eq. 10) of the union of groups a and b.
  [[nodiscard]] double union_gain(std::size_t a, std::size_t b, std::span<const double> lat) const {
    double sum = 0;
    for (std::size_t r = 0; r < regions; ++r) {
      const double lo = std::min(min[a * regions + r], min[b * regions + r]);
      const double hi = std::max(max[a * regions + r], max[b * regions + r]);
      sum += lat[r] * (lo - (hi - lo));
    }
    return sum;
  }
  void unlink(std::size_t g) {
    alive[g] = false;
    if (prev[g] != npos) next[prev[g]] = next[g];
    if (next[g] != npos) prev[next[g]] = prev[g];
  }
  //! Merges group b into a: a's items first, then b's (Algorithm 1, MERGE).
  void merge(std::size_t a, std::size_t b) {
    next_item[tail[a]] = head[b];
    tail[a] = tail[b];
    size[a] += size[b];
    for (std::size_t r = 0; r < regions; ++r) {
      min[a * regions + r] = std::min(min[a * regions + r], min[b * regions + r]);
      max[a * regions + r] = std::max(max[a * regions + r], max[b * regions + r]);
    }
    unlink(b);
    ++version[a];
  }
  //! Moves the first `gs` items of group a to `order`; the rest keeps merging, its extent
  //! rebuilt from its items. Returns false when nothing is left of a.
  bool take_group(std::size_t a, std::size_t gs, const bbv_matrix& bbv,
                  std::vector<std::uint32_t>& order) {
    std::uint32_t item = head[a];
    for (std::size_t k = 0; k < gs; ++k, item = next_item[item]) order.push_back(item);
    size[a] -= static_cast<std::uint32_t>(gs);
    if (size[a] == 0) return false;
    head[a] = item;
    const auto lo = min.begin() + static_cast<std::ptrdiff_t>(a * regions);
    const auto hi = max.begin() + static_cast<std::ptrdiff_t>(a * regions);
    std::ranges::copy(bbv.row(item), lo);
    std::ranges::copy(bbv.row(item), hi);
    for (std::uint32_t k = 1, it = next_item[item]; k < size[a]; ++k, it = next_item[it])
      for (std::size_t r = 0; r < regions; ++r) {
        lo[static_cast<std::ptrdiff_t>(r)] =
            std::min(lo[static_cast<std::ptrdiff_t>(r)], bbv.at(it, r));
        hi[static_cast<std::ptrdiff_t>(r)] =
            std::max(hi[static_cast<std::ptrdiff_t>(r)], bbv.at(it, r));
      }
    return true;
  }
};

//! Whole groups of identical BBVs go to `order` first: merging them has no cost (eq. 9), so the
//! merges would form them too, and a launch where most items are alike (empty voxels) leaves
//! only its remainders, returned, to the priority queue.
std::vector<std::uint32_t> take_identical_groups(const bbv_matrix& bbv,
                                                 std::span<const std::uint32_t> sorted,
                                                 std::size_t gs,
                                                 std::vector<std::uint32_t>& order) {
  std::vector<std::uint32_t> list;
  for (std::size_t first = 0; first < sorted.size();) {
    std::size_t last = first + 1;
    while (last < sorted.size() &&
           std::ranges::equal(bbv.row(sorted[first]), bbv.row(sorted[last])))
      ++last;
    const std::size_t whole = (last - first) / gs * gs;
    order.insert(order.end(), sorted.begin() + static_cast<std::ptrdiff_t>(first),
                 sorted.begin() + static_cast<std::ptrdiff_t>(first + whole));
    list.insert(list.end(), sorted.begin() + static_cast<std::ptrdiff_t>(first + whole),
                sorted.begin() + static_cast<std::ptrdiff_t>(last));
    first = last;
  }
  return list;
}

//! A candidate merge of two neighbouring groups: (gain, -left, left, right, versions).
using edge =
    std::tuple<double, std::int64_t, std::size_t, std::size_t, std::uint32_t, std::uint32_t>;

}  // namespace

std::vector<std::uint32_t> greedy_order(const bbv_matrix& bbv, std::span<const double> latency,
                                        const regroup_options& options) {
  validate(bbv);
  validate_latency(bbv, latency);
  validate(options);
  const auto sorted = detail::latency_order(bbv, latency);
  const std::size_t gs = static_cast<std::size_t>(options.groupsize);
  std::vector<std::uint32_t> order;
  order.reserve(sorted.size());
  const std::vector<std::uint32_t> list = take_identical_groups(bbv, sorted, gs, order);
  const std::size_t n = list.size();
  if (n == 0) return order;
  greedy_groups g(bbv, list);
  std::priority_queue<edge> heap;
  const auto push = [&](std::size_t left) {
    if (left == npos || g.next[left] == npos) return;
    const std::size_t right = g.next[left];
    heap.emplace(g.union_gain(left, right, latency), -static_cast<std::int64_t>(left), left, right,
                 g.version[left], g.version[right]);
  };
  for (std::size_t i = 0; i + 1 < n; ++i) push(i);
  while (!heap.empty()) {
    const auto [gain_value, tie, a, b, va, vb] = heap.top();
    heap.pop();
    if (!g.alive[a] || !g.alive[b] || g.version[a] != va || g.version[b] != vb || g.next[a] != b)
      continue;
    g.merge(a, b);
    if (g.size[a] >= gs && !g.take_group(a, gs, bbv, order)) {  // a finished group, nothing left
      const std::size_t before = g.prev[a];
      g.unlink(a);
      push(before);
      continue;
    }
    push(g.prev[a]);
    push(a);
  }
  for (std::size_t k = 0; k < n; ++k) {  // at most one partial group is left
    if (!g.alive[k]) continue;
    std::uint32_t item = g.head[k];
    for (std::uint32_t c = 0; c < g.size[k]; ++c, item = g.next_item[item]) order.push_back(item);
  }
  return order;
}

std::vector<std::uint32_t> regroup(regroup_method method, const bbv_matrix& bbv,
                                   std::span<const double> latency,
                                   const regroup_options& options) {
  validate(bbv);
  validate(options);
  switch (method) {
    case regroup_method::original:
      validate_latency(bbv, latency);
      {
        std::vector<std::uint32_t> order(bbv.items);
        std::iota(order.begin(), order.end(), 0u);
        return order;
      }
    case regroup_method::sorting:
      validate_latency(bbv, latency);
      return sorting_order(bbv);
    case regroup_method::greedy:
      return greedy_order(bbv, latency, options);
    case regroup_method::greedy_max:
      return greedy_max_order(bbv, latency, options);
  }
  throw_invalid("regroup method", static_cast<int>(method), "is not a regroup_method");
}

}  // namespace microsched::model
