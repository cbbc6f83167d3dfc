#include "microsched/pipeline/lam.hpp"

#include <algorithm>

#include "microsched/pipeline/detail/invalid.hpp"

namespace microsched::pipeline {

namespace {
void check_classes(int classes) {
  if (classes < 1 || classes > 65536) detail::invalid("classes", classes, "must be in 1..65536");
}
}  // namespace

std::vector<std::uint32_t> value_classes(std::span<const std::uint32_t> values, int classes) {
  check_classes(classes);
  std::vector<std::uint32_t> out(values.size(), 0);
  if (values.empty()) return out;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const std::uint64_t mn = *lo;
  const std::uint64_t span = std::uint64_t{*hi} - mn + 1;  // width of [min, max]
  for (std::size_t i = 0; i < values.size(); ++i)
    out[i] = static_cast<std::uint32_t>((values[i] - mn) * static_cast<std::uint64_t>(classes) / span);
  return out;
}

lam_result lam_on_classes(std::span<const std::uint32_t> class_of, int classes, int warp) {
  check_classes(classes);
  if (warp < 1) detail::invalid("warp", warp, "must be >= 1");
  const std::size_t n = class_of.size();
  const auto w = static_cast<std::size_t>(warp);
  const auto r = static_cast<std::size_t>(classes);

  // Label: count each class, quota = warps it can fill entirely.
  std::vector<std::size_t> count(r, 0);
  for (const std::uint32_t c : class_of) {
    if (c >= r) detail::invalid("class id", c, "must be below the number of classes");
    ++count[c];
  }
  std::vector<std::size_t> quota(r);
  for (std::size_t k = 0; k < r; ++k) quota[k] = count[k] / w;

  const std::size_t warps = (n + w - 1) / w;
  lam_result result;
  result.warp_label.assign(warps, lam_mixed);
  std::vector<std::vector<index_t>> to_fill(r);  // openings of a to-be-pure warp, per class
  std::vector<std::size_t> coverage(r, 0);
  for (std::size_t seg = 0; seg < n / w; ++seg) {  // full warp segments; a partial one is mixed
    const std::size_t base = seg * w;
    std::fill(coverage.begin(), coverage.end(), 0);
    std::size_t best = 0;
    for (std::size_t j = base; j < base + w; ++j) {
      const std::size_t c = class_of[j];
      if (++coverage[c] > coverage[best] || (coverage[c] == coverage[best] && c < best)) best = c;
    }
    if (quota[best] == 0) continue;  // mixed
    --quota[best];
    result.warp_label[seg] = static_cast<int>(best);
    for (std::size_t j = base; j < base + w; ++j)
      if (class_of[j] != best) to_fill[best].push_back(static_cast<index_t>(j));
  }

  // Assign: elements in openings go to openings of their own class, else to a mixed warp later.
  result.destination = identity(n);
  std::vector<std::size_t> cur(r, 0);
  std::vector<index_t> to_mix;
  for (std::size_t k = 0; k < r; ++k) {
    for (const index_t loc : to_fill[k]) {
      const std::size_t l = class_of[loc];
      if (cur[l] < to_fill[l].size())
        result.destination[loc] = to_fill[l][cur[l]++];
      else
        to_mix.push_back(loc);
    }
  }
  // Elements of mixed warps fill the remaining openings; each spot they leave takes a to-mix one.
  std::size_t next_mix = 0;
  for (std::size_t seg = 0; seg < warps; ++seg) {
    if (result.warp_label[seg] != lam_mixed) continue;
    const std::size_t end = std::min(n, (seg + 1) * w);
    for (std::size_t j = seg * w; j < end; ++j) {
      const std::size_t l = class_of[j];
      if (cur[l] < to_fill[l].size() && next_mix < to_mix.size()) {
        result.destination[j] = to_fill[l][cur[l]++];
        result.destination[to_mix[next_mix++]] = static_cast<index_t>(j);
      }
    }
  }
  // Openings of a class left unfilled (only possible when a class's elements sit in openings of
  // other classes already exhausted) take the remaining to-mix elements: keeps a bijection.
  for (std::size_t k = 0; k < r && next_mix < to_mix.size(); ++k)
    while (cur[k] < to_fill[k].size() && next_mix < to_mix.size())
      result.destination[to_mix[next_mix++]] = to_fill[k][cur[k]++];

  for (std::size_t i = 0; i < n; ++i) result.moved += result.destination[i] != i ? 1 : 0;
  return result;
}

lam_result lam(std::span<const std::uint32_t> values, const lam_arguments& args) {
  const std::vector<std::uint32_t> classes = value_classes(values, args.classes);
  return lam_on_classes(classes, args.classes, args.warp);
}

}  // namespace microsched::pipeline
