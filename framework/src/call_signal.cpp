// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/call_signal.hpp"

#include <algorithm>

namespace microsched {

signal_layout layout_signal(std::uint64_t blocks, int block_threads, std::uint64_t tasks) {
  signal_layout layout;
  if (blocks == 0 || block_threads <= 0) return layout;
  const auto most = static_cast<std::uint64_t>(signal_layout::most_slots);
  while (((blocks - 1) >> layout.shift) + 1 > most) ++layout.shift;
  layout.slots = static_cast<int>(((blocks - 1) >> layout.shift) + 1);
  const auto threads = static_cast<std::uint64_t>(block_threads);
  for (int s = 0; s < layout.slots; ++s) {
    const std::uint64_t first = (static_cast<std::uint64_t>(s) << layout.shift) * threads;
    if (first < tasks) layout.sampled_tasks += std::min(threads, tasks - first);
  }
  return layout;
}

call_signal read_signal(const signal_slot* slots, const signal_layout& layout, std::uint32_t tag) {
  call_signal signal;
  if (slots == nullptr || layout.slots == 0) return signal;
  unsigned long long first = 0;
  unsigned long long last = 0;
  for (int s = 0; s < layout.slots; ++s) {
    const volatile signal_slot& slot = slots[s];
    if (slot.tag != tag || slot.clock_tag != tag) return signal;
    signal.counts.steps += slot.steps;
    signal.counts.warp_slowest += 32ull * slot.warp_maxima;
    signal.counts.over_budget += slot.over_budget;
    const unsigned long long start =
        (static_cast<unsigned long long>(slot.start_high) << 32) | slot.start_low;
    first = s == 0 ? start : std::min(first, start);
    last = std::max(last, start + slot.elapsed_ns);
  }
  signal.complete = true;
  signal.counted = signal.counts.warp_slowest > 0;
  signal.tasks = layout.sampled_tasks;
  signal.ms = last > first ? static_cast<double>(last - first) * 1e-6 : 0.0;
  return signal;
}

}  // namespace microsched
