// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/pipeline/job_swap.hpp"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "microsched/error.hpp"

namespace microsched::pipeline {

std::vector<index_t> job_swap(std::span<const index_t> refs, const job_swap_arguments& args) {
  if (args.element_bytes == 0) throw_invalid("element_bytes", args.element_bytes, "must be > 0");
  if (args.segment_bytes < args.element_bytes)
    throw_invalid("segment_bytes", args.segment_bytes, "must hold at least one element");
  if (args.warp < 1) throw_invalid("warp", args.warp, "must be >= 1");
  const auto w = static_cast<std::size_t>(args.warp);

  // Categories: jobs grouped by the segment of A they reference, in order of first appearance.
  std::vector<std::uint64_t> seg_of(refs.size());
  std::vector<std::uint64_t> segs;
  for (std::size_t j = 0; j < refs.size(); ++j) {
    seg_of[j] = std::uint64_t{refs[j]} * args.element_bytes / args.segment_bytes;
  }
  segs = seg_of;
  std::sort(segs.begin(), segs.end());
  segs.erase(std::unique(segs.begin(), segs.end()), segs.end());
  std::vector<std::vector<index_t>> category(segs.size());
  for (std::size_t j = 0; j < refs.size(); ++j) {
    const auto c = static_cast<std::size_t>(std::lower_bound(segs.begin(), segs.end(), seg_of[j]) -
                                            segs.begin());
    category[c].push_back(static_cast<index_t>(j));
  }

  // Full buckets: floor(|C_i| / W) warps per category, one segment each.
  std::vector<index_t> source;
  source.reserve(refs.size());
  std::vector<std::vector<index_t>> residual;
  for (auto& c : category) {
    const std::size_t full = c.size() / w * w;
    source.insert(source.end(), c.begin(), c.begin() + static_cast<std::ptrdiff_t>(full));
    if (full < c.size())
      residual.emplace_back(c.begin() + static_cast<std::ptrdiff_t>(full), c.end());
  }
  // Greedy packing: the largest residual opens a bucket, the smallest fill it.
  std::stable_sort(residual.begin(), residual.end(),
                   [](const auto& a, const auto& b) { return a.size() > b.size(); });
  std::deque<std::vector<index_t>> omega(std::make_move_iterator(residual.begin()),
                                         std::make_move_iterator(residual.end()));
  while (!omega.empty()) {
    std::vector<index_t> largest = std::move(omega.front());
    omega.pop_front();
    std::size_t room = w - largest.size();
    source.insert(source.end(), largest.begin(), largest.end());
    while (room > 0 && !omega.empty()) {
      std::vector<index_t>& smallest = omega.back();
      if (smallest.size() <= room) {
        room -= smallest.size();
        source.insert(source.end(), smallest.begin(), smallest.end());
        omega.pop_back();
      } else {  // split the smallest: what is left stays the smallest set
        source.insert(source.end(), smallest.end() - static_cast<std::ptrdiff_t>(room),
                      smallest.end());
        smallest.resize(smallest.size() - room);
        room = 0;
      }
    }
  }
  return source;
}

}  // namespace microsched::pipeline
