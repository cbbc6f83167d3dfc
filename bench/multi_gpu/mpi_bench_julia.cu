// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// mpi_multi_gpu_bench's Julia view, a file of its own so that the workloads build in parallel.
#include "mpi_multi_gpu_bench.cuh"

namespace microsched::bench {

void mpi_bench_julia(const mpi_options& opt) {
  const int side = opt.sizes.julia_side;
  bench_workload<kernels::julia_program<float>>(
      "julia", task_id(side) * task_id(side), 1,
      [side](std::vector<std::uint32_t*> p) { return julia_view_program(side, p[0]); }, opt);
}

}  // namespace microsched::bench
