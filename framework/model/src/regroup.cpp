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

//! A group of Algorithm 1, one node of the doubly linked candidate list.
struct greedy_group {
  std::vector<std::uint32_t> items;
  group_extent extent{0};
  std::size_t prev = 0, next = 0;  // neighbours in the list; npos at the ends
  std::uint32_t version = 0;       // bumped on every change, so stale heap entries are skipped
  bool alive = true;
};

constexpr std::size_t npos = static_cast<std::size_t>(-1);

//! A candidate merge of two neighbouring groups: (gain, -left, left, right, versions).
using edge =
    std::tuple<double, std::int64_t, std::size_t, std::size_t, std::uint32_t, std::uint32_t>;

}  // namespace

std::vector<std::uint32_t> greedy_order(const bbv_matrix& bbv, std::span<const double> latency,
                                        const regroup_options& options) {
  validate(bbv);
  validate_latency(bbv, latency);
  validate(options);
  const auto list = detail::latency_order(bbv, latency);
  const std::size_t n = list.size(), gs = static_cast<std::size_t>(options.groupsize);
  std::vector<greedy_group> groups(n);
  for (std::size_t i = 0; i < n; ++i) {
    groups[i].items = {list[i]};
    groups[i].extent = group_extent(bbv.regions);
    groups[i].extent.add(bbv.row(list[i]));
    groups[i].prev = i == 0 ? npos : i - 1;
    groups[i].next = i + 1 == n ? npos : i + 1;
  }
  std::priority_queue<edge> heap;
  const auto push = [&](std::size_t left) {
    if (left == npos || groups[left].next == npos) return;
    const std::size_t right = groups[left].next;
    const double g = gain(groups[left].extent.merged(groups[right].extent), latency);
    heap.emplace(g, -static_cast<std::int64_t>(left), left, right, groups[left].version,
                 groups[right].version);
  };
  for (std::size_t i = 0; i + 1 < n; ++i) push(i);

  std::vector<std::uint32_t> order;
  order.reserve(n);
  while (!heap.empty()) {
    const auto [g, tie, left, right, vl, vr] = heap.top();
    heap.pop();
    greedy_group& a = groups[left];
    greedy_group& b = groups[right];
    if (!a.alive || !b.alive || a.version != vl || b.version != vr || a.next != right) continue;
    // merge b into a: a's items first, then b's (Algorithm 1, MERGE)
    a.items.insert(a.items.end(), b.items.begin(), b.items.end());
    a.extent = a.extent.merged(b.extent);
    b.alive = false;
    a.next = b.next;
    if (b.next != npos) groups[b.next].prev = left;
    ++a.version;
    if (a.items.size() >= gs) {  // the first groupsize items form a finished group
      order.insert(order.end(), a.items.begin(), a.items.begin() + static_cast<std::ptrdiff_t>(gs));
      a.items.erase(a.items.begin(), a.items.begin() + static_cast<std::ptrdiff_t>(gs));
      a.extent = group_extent(bbv.regions);
      for (const std::uint32_t item : a.items) a.extent.add(bbv.row(item));
      if (a.items.empty()) {  // unlink the emptied group
        a.alive = false;
        if (a.prev != npos) groups[a.prev].next = a.next;
        if (a.next != npos) groups[a.next].prev = a.prev;
        push(a.prev);
        continue;
      }
    }
    push(a.prev);
    push(left);
  }
  for (std::size_t i = 0; i < n; ++i)  // at most one partial group is left
    if (groups[i].alive) order.insert(order.end(), groups[i].items.begin(), groups[i].items.end());
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
