// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/pipeline/lam.hpp"

#include <algorithm>

#include "microsched/error.hpp"

namespace microsched::pipeline {

namespace {
void validate_classes(int classes) {
  if (classes < 1 || classes > 65536) throw_invalid("classes", classes, "must be in 1..65536");
}

//! zhang2010 Figure 5, steps 1 and 2 (label): each class's quota of warps it can fill, and the
//! warp segments labelled with a class (ws.warp_label; lam_mixed for the others), the elements
//! of other classes in a labelled segment listed as its class's openings (ws.to_fill).
void lam_label(std::span<const std::uint32_t> class_of, std::size_t r, std::size_t w,
               bool fill_quotas, lam_workspace& ws) {
  const std::size_t n = class_of.size();

  // Label: count each class, quota = warps it can fill entirely.
  ws.count.assign(r, 0);
  for (const std::uint32_t c : class_of) {
    if (c >= r) throw_invalid("class id", c, "must be below the number of classes");
    ++ws.count[c];
  }
  ws.quota.resize(r);
  for (std::size_t k = 0; k < r; ++k) ws.quota[k] = ws.count[k] / static_cast<std::uint32_t>(w);

  const std::size_t warps = (n + w - 1) / w;
  ws.warp_label.assign(warps, lam_mixed);
  if (ws.to_fill.size() < r) ws.to_fill.resize(r);
  for (std::size_t k = 0; k < r; ++k) ws.to_fill[k].clear();
  ws.coverage.assign(r, 0);

  // Coverage of one full segment: the class covering most of it (smallest id on ties) among the
  // classes accepted by `eligible`; only the classes present are touched, so R may be large.
  const auto best_of = [&](std::size_t base, auto eligible) -> long {
    ws.touched.clear();
    for (std::size_t j = base; j < base + w; ++j) {
      const std::uint32_t c = class_of[j];
      if (ws.coverage[c]++ == 0) ws.touched.push_back(c);
    }
    long best = -1;
    std::uint32_t most = 0;
    for (const std::uint32_t c : ws.touched) {
      if (eligible(c) && (ws.coverage[c] > most || (ws.coverage[c] == most && c < best))) {
        best = c;
        most = ws.coverage[c];
      }
      ws.coverage[c] = 0;
    }
    return best;
  };
  const auto label = [&](std::size_t seg, std::size_t c) {
    --ws.quota[c];
    ws.warp_label[seg] = static_cast<int>(c);
    const std::size_t base = seg * w;
    for (std::size_t j = base; j < base + w; ++j)
      if (class_of[j] != c) ws.to_fill[c].push_back(static_cast<index_t>(j));
  };
  const std::size_t full = n / w;  // full warp segments; a partial one is mixed
  for (std::size_t seg = 0; seg < full; ++seg) {
    const long best = best_of(seg * w, [](std::uint32_t) { return true; });
    if (ws.quota[static_cast<std::size_t>(best)] > 0) label(seg, static_cast<std::size_t>(best));
  }
  if (fill_quotas) {
    // Second pass: a segment left mixed takes the best-covering class that still has quota, or
    // failing that, the first class with quota left.
    std::size_t spare = 0;  // classes below `spare` have no quota left
    for (std::size_t seg = 0; seg < full; ++seg) {
      if (ws.warp_label[seg] != lam_mixed) continue;
      while (spare < r && ws.quota[spare] == 0) ++spare;
      if (spare == r) break;
      const long best = best_of(seg * w, [&](std::uint32_t c) { return ws.quota[c] > 0; });
      label(seg, best >= 0 ? static_cast<std::size_t>(best) : spare);
    }
  }
}

//! zhang2010 Figure 5, step 3 (assign), into ws.destination: a bijection that moves each element
//! in an opening to an opening of its class; returns the number of elements moved.
std::size_t lam_assign(std::span<const std::uint32_t> class_of, std::size_t r, std::size_t w,
                       lam_workspace& ws) {
  const std::size_t n = class_of.size();
  const std::size_t warps = (n + w - 1) / w;
  // Assign: elements in openings go to openings of their own class, else to a mixed warp later.
  ws.destination.resize(n);
  for (std::size_t i = 0; i < n; ++i) ws.destination[i] = static_cast<index_t>(i);
  ws.cur.assign(r, 0);
  ws.to_mix.clear();
  for (std::size_t k = 0; k < r; ++k) {
    for (const index_t loc : ws.to_fill[k]) {
      const std::size_t l = class_of[loc];
      if (ws.cur[l] < ws.to_fill[l].size())
        ws.destination[loc] = ws.to_fill[l][ws.cur[l]++];
      else
        ws.to_mix.push_back(loc);
    }
  }
  // Elements of mixed warps fill the remaining openings; each spot they leave takes a to-mix one.
  std::size_t next_mix = 0;
  for (std::size_t seg = 0; seg < warps && next_mix < ws.to_mix.size(); ++seg) {
    if (ws.warp_label[seg] != lam_mixed) continue;
    const std::size_t end = std::min(n, (seg + 1) * w);
    for (std::size_t j = seg * w; j < end; ++j) {
      const std::size_t l = class_of[j];
      if (ws.cur[l] < ws.to_fill[l].size() && next_mix < ws.to_mix.size()) {
        ws.destination[j] = ws.to_fill[l][ws.cur[l]++];
        ws.destination[ws.to_mix[next_mix++]] = static_cast<index_t>(j);
      }
    }
  }
  // Openings of a class left unfilled (only possible when a class's elements sit in openings of
  // other classes already exhausted) take the remaining to-mix elements: keeps a bijection.
  for (std::size_t k = 0; k < r && next_mix < ws.to_mix.size(); ++k)
    while (ws.cur[k] < ws.to_fill[k].size() && next_mix < ws.to_mix.size())
      ws.destination[ws.to_mix[next_mix++]] = ws.to_fill[k][ws.cur[k]++];

  std::size_t moved = 0;
  for (std::size_t i = 0; i < n; ++i) moved += ws.destination[i] != i ? 1 : 0;
  return moved;
}

//! The three steps of zhang2010 Figure 5 on class ids, into ws.destination and ws.warp_label.
//! Reuses the workspace's vectors; returns the number of elements moved.
std::size_t lam_core(std::span<const std::uint32_t> class_of, int classes, int warp,
                     bool fill_quotas, lam_workspace& ws) {
  validate_classes(classes);
  if (warp < 1) throw_invalid("warp", warp, "must be >= 1");
  const auto w = static_cast<std::size_t>(warp);
  const auto r = static_cast<std::size_t>(classes);
  lam_label(class_of, r, w, fill_quotas, ws);
  return lam_assign(class_of, r, w, ws);
}
}  // namespace

void value_classes_into(std::span<const std::uint32_t> values, int classes,
                        std::span<std::uint32_t> out) {
  validate_classes(classes);
  if (out.size() != values.size()) throw_invalid("out size", out.size(), "must match the values");
  if (values.empty()) return;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const std::uint64_t mn = *lo;
  const std::uint64_t span = std::uint64_t{*hi} - mn + 1;  // width of [min, max]
  // Class q holds the x = v - min with q <= x * R / span < q + 1, i.e. x >= ceil(q * span / R):
  // count the thresholds at or below x instead of dividing per element (exact).
  std::vector<std::uint32_t> threshold(static_cast<std::size_t>(classes) - 1);
  for (std::size_t q = 1; q < static_cast<std::size_t>(classes); ++q)
    threshold[q - 1] = static_cast<std::uint32_t>(
        (q * span + static_cast<std::uint64_t>(classes) - 1) / static_cast<std::uint64_t>(classes));
  if (classes <= 32) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto x = static_cast<std::uint32_t>(values[i] - mn);
      std::uint32_t q = 0;
      for (const std::uint32_t t : threshold) q += x >= t ? 1u : 0u;
      out[i] = q;
    }
  } else {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto x = static_cast<std::uint32_t>(values[i] - mn);
      out[i] = static_cast<std::uint32_t>(std::upper_bound(threshold.begin(), threshold.end(), x) -
                                          threshold.begin());
    }
  }
}

std::vector<std::uint32_t> value_classes(std::span<const std::uint32_t> values, int classes) {
  std::vector<std::uint32_t> out(values.size(), 0);
  value_classes_into(values, classes, out);
  return out;
}

lam_result lam_on_classes(std::span<const std::uint32_t> class_of, int classes, int warp) {
  lam_workspace ws;
  lam_result result;
  result.moved = lam_core(class_of, classes, warp, false, ws);
  result.destination = std::move(ws.destination);
  result.warp_label = std::move(ws.warp_label);
  return result;
}

lam_result lam(std::span<const std::uint32_t> values, const lam_arguments& args) {
  lam_workspace ws;
  ws.class_of.resize(values.size());
  value_classes_into(values, args.classes, ws.class_of);
  lam_result result;
  result.moved = lam_core(ws.class_of, args.classes, args.warp, args.fill_quotas, ws);
  result.destination = std::move(ws.destination);
  result.warp_label = std::move(ws.warp_label);
  return result;
}

std::size_t lam_source(std::span<const std::uint32_t> values, const lam_arguments& args,
                       lam_workspace& ws, std::span<index_t> source, index_t base) {
  if (source.size() != values.size())
    throw_invalid("source size", source.size(), "must match the values");
  ws.class_of.resize(values.size());
  value_classes_into(values, args.classes, ws.class_of);
  const std::size_t moved = lam_core(ws.class_of, args.classes, args.warp, args.fill_quotas, ws);
  for (std::size_t i = 0; i < values.size(); ++i)
    source[ws.destination[i]] = base + static_cast<index_t>(i);
  return moved;
}

}  // namespace microsched::pipeline
