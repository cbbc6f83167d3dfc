// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// mpi_multi_gpu_bench's Monte Carlo walks, a file of its own so that the workloads build in
// parallel.
#include "mpi_multi_gpu_bench.cuh"

namespace microsched::bench {

void mpi_bench_walks(const mpi_options& opt) {
  bench_workload<kernels::montecarlo_program>(
      "walks", opt.sizes.walks, 2,
      [](std::vector<std::uint32_t*> p) { return walks_program(p[0], p[1]); }, opt);
}

}  // namespace microsched::bench
