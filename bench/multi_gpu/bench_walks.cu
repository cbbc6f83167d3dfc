// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// multi_gpu_bench's Monte Carlo walks, a file of its own so that the workloads build in parallel.
#include "multi_gpu_bench.cuh"

namespace microsched::bench {

void bench_walks(const multi_options& opt, int visible, std::vector<multi_row>& rows) {
  bench_workload<kernels::montecarlo_program>(
      "walks", opt.sizes.walks, 2,
      [](std::vector<std::uint32_t*> p) { return walks_program(p[0], p[1]); }, opt, visible, rows);
}

}  // namespace microsched::bench
