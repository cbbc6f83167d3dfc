// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "switching_workloads.hpp"

#include <utility>

namespace microsched::switching_workloads {

namespace {
std::string& last_schedule() {
  static std::string report;
  return report;
}
}  // namespace

std::string last_switching_schedule() {
  return last_schedule();
}
void detail::set_last_switching_schedule(std::string report) {
  last_schedule() = std::move(report);
}

std::vector<int> compiled_pool_sizes() {
  return {64, 128};
}

std::string to_string(const variant& v) {
  return to_string(v.schedule.strategy) + " chunk=" + std::to_string(v.schedule.chunk) +
         " blocks/SM=" +
         (v.schedule.blocks_per_sm == 0 ? std::string("auto")
                                        : std::to_string(v.schedule.blocks_per_sm)) +
         ", " + std::to_string(v.contexts_per_warp) + " contexts/warp, " +
         to_string(v.schedule.switching);
}

}  // namespace microsched::switching_workloads
