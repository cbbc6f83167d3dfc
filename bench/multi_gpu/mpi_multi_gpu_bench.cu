// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One task range over the ranks of MPI_COMM_WORLD, one GPU per rank (mpi_scheduler): the same
// workloads as multi_gpu_bench, dynamic claims from an MPI window and the static equal split;
// wall-clock medians from a barrier before the run to a barrier after it, every task counted once
// over the ranks; then the cost of one claim (an MPI_Fetch_and_op read and add on rank 0's
// window) with every rank claiming at once. Rank 0 prints. The workloads are in
// mpi_bench_julia.cu, mpi_bench_walks.cu and mpi_bench_skewed.cu.
//   mpirun -np 4 mpi_multi_gpu_bench --workloads julia,walks,skewed
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "checked_cli.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/multi_gpu/mpi_scheduler.cuh"
#include "mpi_multi_gpu_bench.cuh"

using namespace microsched;
using namespace microsched::multi_gpu;
using namespace microsched::bench;

namespace {

//! Microseconds per claim (read and fetch-and-add) with every rank claiming at once.
void claim_cost(int rank, int ranks) {
  mpi_claim_counter counter(MPI_COMM_WORLD);
  claim_settings s;
  s.min_tasks = 1;
  s.granules = task_id{1} << 30;
  s.share_divisor = task_id{1} << 40;
  const int claims = 20000;
  counter.reset();
  const double start = MPI_Wtime();
  for (int i = 0; i < claims; ++i) {
    (void)take_claim(counter, task_id{1} << 40, ranks, 1, s);
  }
  const double us = (MPI_Wtime() - start) * 1e6 / claims;
  double slowest = 0;
  MPI_Reduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf(
        "claim cost, %d ranks: %.2f us (MPI_Fetch_and_op read + add on rank 0's window, "
        "every rank claiming; slowest rank)\n",
        ranks, slowest);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  CLI::App app{
      "One task range over MPI ranks, one GPU each.\n"
      "Example: mpirun -np 4 mpi_multi_gpu_bench --workloads julia,walks,skewed"};
  mpi_options opt;
  std::string workloads = "julia,walks,skewed";
  app.add_option("--workloads", workloads, "julia, walks, skewed, comma-separated")
      ->capture_default_str();
  bench::add_workload_options(app, opt.sizes, opt.warmup, opt.repetitions);
  int code = 0;
  if (const auto parsed = programs::parse_arguments(app, argc, argv)) {
    code = *parsed;
  } else {
    code = programs::run_main("mpi_multi_gpu_bench", [&] {
      std::stringstream names(workloads);
      opt.workloads.clear();
      for (std::string item; std::getline(names, item, ',');) {
        if (item != "julia" && item != "walks" && item != "skewed") {
          throw std::invalid_argument("--workloads = '" + item + "': julia, walks or skewed");
        }
        opt.workloads.push_back(item);
      }
      programs::require_gpu();
      // Outputs go to this rank's GPU, the one its mpi_scheduler runs on.
      MICROSCHED_CUDA_TRY(cudaSetDevice(mpi_rank_device(MPI_COMM_WORLD)));
      if (rank == 0) std::printf("%d ranks\n", ranks);
      for (const std::string& w : opt.workloads) {
        if (w == "julia") {
          mpi_bench_julia(opt);
        } else if (w == "walks") {
          mpi_bench_walks(opt);
        } else {
          mpi_bench_skewed(opt);
        }
      }
      claim_cost(rank, ranks);
      return 0;
    });
  }
  // Bad arguments (2) and no GPU (77) end every rank alike; a failed run may leave ranks waiting.
  if (code == programs::failure_exit_code) MPI_Abort(MPI_COMM_WORLD, code);
  MPI_Finalize();
  return code;
}
