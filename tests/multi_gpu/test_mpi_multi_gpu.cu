// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// mpi_scheduler over the ranks of MPI_COMM_WORLD, one GPU each (ranks share GPU 0 on a machine
// of one): every task runs exactly once over the ranks (per-rank counts summed on rank 0), and
// the outputs gathered from the ranks equal the single-GPU scheduler's, at sizes 0, 1, fewer
// tasks than ranks and 2^20 + 7, under interleaved claims and the equal split. Exits 77 on every
// rank without a GPU.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "microsched/check/counted_program.cuh"
#include "microsched/device_buffer.hpp"
#include "microsched/multi_gpu/mpi_scheduler.cuh"
#include "montecarlo/montecarlo_program.cuh"

using namespace microsched;
using namespace microsched::multi_gpu;
using kernels::montecarlo_program;

namespace {

montecarlo_program walks(std::uint32_t* steps, std::uint32_t* sums) {
  montecarlo_program p;
  p.kill_probability = 0.05f;
  p.steps_out = steps;
  p.sum_out = sums;
  return p;
}

//! On rank 0: whether `count` walks ran once each and match one GPU's outputs.
bool check(mpi_scheduler<counted_program<montecarlo_program>>& sched, task_id count) {
  const std::size_t n = static_cast<std::size_t>(count);
  device_buffer<std::uint32_t> steps(n), sums(n), counts(n);
  counts.fill_bytes(0);
  steps.fill_bytes(0);
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  // example-begin mpi-run
  // every rank: mpi_scheduler<Program> sched(MPI_COMM_WORLD) made this rank's GPU current
  const rank_claims mine = sched.run(  // collective; what this rank ran (mine.for_each_run)
      counted_program<montecarlo_program>{walks(steps.data(), sums.data()), counts.data()}, count);
  // example-end mpi-run
  // Each rank's counts cover the tasks it ran; their sum over the ranks must be 1 everywhere.
  std::vector<std::uint32_t> local_counts = counts.to_host();
  std::vector<std::uint32_t> local_steps(n, 0);
  const std::vector<std::uint32_t> all_steps = steps.to_host();
  mine.for_each_run([&](task_id first, task_id n) {
    for (task_id t = first; t < first + n; ++t) local_steps[t] = all_steps[t];
  });
  std::vector<std::uint32_t> total_counts(n), total_steps(n);
  MPI_Reduce(local_counts.data(), total_counts.data(), static_cast<int>(n), MPI_UINT32_T, MPI_SUM,
             0, MPI_COMM_WORLD);
  MPI_Reduce(local_steps.data(), total_steps.data(), static_cast<int>(n), MPI_UINT32_T, MPI_SUM, 0,
             MPI_COMM_WORLD);
  if (sched.rank() != 0) return true;
  for (const std::uint32_t c : total_counts) {
    if (c != 1) return false;
  }
  device_buffer<std::uint32_t> want_steps(n), want_sums(n);
  scheduler<montecarlo_program>{}.run(walks(want_steps.data(), want_sums.data()), count);
  return want_steps.to_host() == total_steps;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int gpus = cuda_device_count();
  MPI_Allreduce(MPI_IN_PLACE, &gpus, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (gpus == 0) {
    if (rank == 0) std::printf("SKIPPED: no CUDA GPU on this machine; MPI device test not run\n");
    MPI_Finalize();
    return no_gpu_exit_code;
  }
  int passed = 0;
  int failed = 0;
  try {
    for (const split_mode split : {split_mode::dynamic, split_mode::equal}) {
      multi_arguments args;
      args.split = split;
      args.claims.min_tasks = 1024;
      mpi_scheduler<counted_program<montecarlo_program>> sched(MPI_COMM_WORLD, args);
      for (const task_id count : {task_id{0}, task_id{1}, static_cast<task_id>(sched.ranks() - 1),
                                  (task_id{1} << 20) + 7}) {
        const bool ok = count == 0 ? (sched.run({}, 0).empty()) : check(sched, count);
        if (rank == 0) {
          (ok ? passed : failed) += 1;
          std::printf("%s: %llu tasks, %s; GPU %d; %s\n", ok ? "ok" : "FAILED",
                      static_cast<unsigned long long>(count), to_string(split), sched.device(),
                      sched.report(count).c_str());
        }
      }
    }
  } catch (const std::exception& e) {
    std::printf("rank %d: error: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("test_mpi_multi_gpu: %d passed, %d failed\n", passed, failed);
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
