#include "switching_runners.hpp"

namespace microsched::switching_workloads {

std::vector<int> compiled_pool_sizes() { return {64, 128}; }

std::string to_string(const variant& v) {
  return to_string(v.schedule.strategy) + " chunk=" + std::to_string(v.schedule.chunk) +
         " blocks/SM=" +
         (v.schedule.blocks_per_sm == 0 ? std::string("auto") : std::to_string(v.schedule.blocks_per_sm)) +
         ", " + std::to_string(v.contexts_per_warp) + " contexts/warp, " +
         switching::to_string(v.switching);
}

}  // namespace microsched::switching_workloads
