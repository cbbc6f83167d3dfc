// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// multi_gpu_bench's skewed walks, a file of its own so that the workloads build in parallel.
#include "multi_gpu_bench.cuh"

namespace microsched::bench {

void bench_skewed(const multi_options& opt, int visible, std::vector<multi_row>& rows) {
  const task_id count = opt.sizes.skewed;
  bench_workload<skewed_walk_program>(
      "skewed", count, 1,
      [count](std::vector<std::uint32_t*> p) { return skewed_program(count, p[0]); }, opt, visible,
      rows);
}

}  // namespace microsched::bench
