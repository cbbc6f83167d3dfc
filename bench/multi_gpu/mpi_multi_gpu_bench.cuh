// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
// The MPI benchmark's parts: its options, one workload's measurement over the ranks, and the
// workloads, each compiled in a file of its own so that they build in parallel.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "microsched/device_buffer.hpp"
#include "microsched/multi_gpu/mpi_scheduler.cuh"
#include "multi_gpu_workloads.cuh"

namespace microsched::bench {

struct mpi_options {
  std::vector<std::string> workloads{"julia", "walks", "skewed"};
  bench::workload_sizes sizes;
  int warmup = 6;
  int repetitions = 7;
};

template <class Program, class Make>
void bench_workload(const std::string& name, task_id count, int outputs, Make make,
                    const mpi_options& opt) {
  std::vector<device_buffer<std::uint32_t>> out;
  for (int o = 0; o < outputs; ++o) out.emplace_back(static_cast<std::size_t>(count));
  std::vector<std::uint32_t*> pointers;
  for (auto& b : out) pointers.push_back(b.data());
  const Program program = make(pointers);
  for (const multi_gpu::split_mode split :
       {multi_gpu::split_mode::dynamic, multi_gpu::split_mode::equal}) {
    multi_gpu::multi_arguments args;
    args.split = split;
    multi_gpu::mpi_scheduler<Program> sched(MPI_COMM_WORLD, args);
    std::vector<double> times;
    multi_gpu::rank_claims mine;
    for (int r = 0; r < opt.warmup + opt.repetitions; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      mine = sched.run(program, count);
      MPI_Barrier(MPI_COMM_WORLD);
      if (r >= opt.warmup) times.push_back((MPI_Wtime() - start) * 1000.0);
    }
    task_id tasks = mine.tasks();
    task_id total = 0;
    task_id most = 0;
    task_id fewest = 0;
    MPI_Reduce(&tasks, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&tasks, &most, 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&tasks, &fewest, 1, MPI_UINT64_T, MPI_MIN, 0, MPI_COMM_WORLD);
    if (sched.rank() == 0) {
      std::sort(times.begin(), times.end());
      if (total != count) {
        throw std::runtime_error(name + ": the ranks ran " + std::to_string(total) + " of " +
                                 std::to_string(count) + " tasks");
      }
      std::printf(
          "%-7s %d ranks %-7s %.3f ms (runs %.3f..%.3f); tasks per rank %llu..%llu; "
          "%zu claims on rank 0; %s\n",
          name.c_str(), sched.ranks(), to_string(split), times[times.size() / 2], times.front(),
          times.back(), static_cast<unsigned long long>(fewest),
          static_cast<unsigned long long>(most), mine.claims.size(), sched.report(count).c_str());
      std::fflush(stdout);
    }
  }
}

void mpi_bench_julia(const mpi_options& opt);
void mpi_bench_walks(const mpi_options& opt);
void mpi_bench_skewed(const mpi_options& opt);

}  // namespace microsched::bench
