// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// block_priority: how an SM's warp schedulers share issue slots between the blocks it holds.
// Every warp runs the same dependent chain of integer steps; each block records when it began and
// when its last warp finished. With several blocks per SM the block that arrived first finishes
// first, near its lone time, and the last one waits for the others: the schedulers favour the
// oldest block, while the warps of one block finish together. This is why the budgeted
// strategy resumes its survivors in one block per SM (scheduler.cuh, one_block_threads).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <vector>

#include "checked_cli.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/error.hpp"

namespace {

struct block_times {
  unsigned long long begin;
  unsigned long long end;
  unsigned sm;
};

__global__ void chains(unsigned steps, block_times* times, unsigned* sink) {
  __shared__ unsigned long long begin;
  if (threadIdx.x == 0) begin = clock64();
  __syncthreads();
  unsigned x = threadIdx.x + 1 + blockIdx.x * 977u;
  for (unsigned i = 0; i < steps; ++i) {  // xorshift32: each step needs the last
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
  }
  if (x == 0) sink[0] = x;  // never true (xorshift keeps x nonzero); keeps the chain alive
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    times[blockIdx.x] = {begin, static_cast<unsigned long long>(clock64()), sm};
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace microsched;
  CLI::App app{
      "Runs blocks of identical dependent chains, --blocks-per-sm of them resident on each SM, "
      "and prints, by the order in which blocks arrived on their SM, when they finished "
      "(mean over the SMs, cycles from the SM's first block's start).\n"
      "Example: block_priority --blocks-per-sm 8 --threads 256"};
  int blocks_per_sm = 8;
  int threads = 256;
  unsigned steps = 20000;
  programs::add_checked(app, "--blocks-per-sm", blocks_per_sm, "blocks resident on each SM", 1, 32);
  programs::add_checked(app, "--threads", threads, "threads per block, a multiple of 32", 32, 1024);
  programs::add_checked(app, "--steps", steps, "dependent steps per thread", 1u, 1u << 30);
  MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);

  return programs::run_main("block_priority", [&] {
    if (threads % 32 != 0) {
      throw std::invalid_argument("--threads = " + std::to_string(threads) +
                                  ": must be a multiple of 32");
    }
    programs::require_gpu();
    int sms = 0;
    MICROSCHED_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int fit = 0;
    MICROSCHED_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, chains, threads, 0));
    if (blocks_per_sm > fit) {
      throw std::invalid_argument("blocks per SM = " + std::to_string(blocks_per_sm) +
                                  ": at most " + std::to_string(fit) + " blocks of " +
                                  std::to_string(threads) + " threads fit on one SM");
    }
    const int blocks = sms * blocks_per_sm;
    device_buffer<block_times> times(static_cast<std::size_t>(blocks));
    device_buffer<unsigned> sink(1);
    for (int run = 0; run < 2; ++run) {  // the first run warms up; the second is reported
      chains<<<blocks, threads>>>(steps, times.data(), sink.data());
      MICROSCHED_CHECK_LAUNCH("block_priority chains");
      MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
    }
    std::vector<block_times> host(static_cast<std::size_t>(blocks));
    MICROSCHED_CUDA_TRY(cudaMemcpy(host.data(), times.data(), host.size() * sizeof(block_times),
                                   cudaMemcpyDeviceToHost));
    std::map<unsigned, std::vector<block_times>> by_sm;
    for (const block_times& t : host) by_sm[t.sm].push_back(t);
    std::vector<double> finish(static_cast<std::size_t>(blocks_per_sm), 0.0);
    std::vector<int> count(static_cast<std::size_t>(blocks_per_sm), 0);
    for (auto& [sm, list] : by_sm) {
      std::sort(list.begin(), list.end(),
                [](const block_times& a, const block_times& b) { return a.begin < b.begin; });
      for (std::size_t rank = 0; rank < list.size() && rank < finish.size(); ++rank) {
        finish[rank] += static_cast<double>(list[rank].end - list.front().begin);
        ++count[rank];
      }
    }
    std::printf("%d SMs, %d blocks of %d threads per SM, %u steps per thread\n", sms, blocks_per_sm,
                threads, steps);
    std::printf("arrival  finished (M cycles)  x first block\n");
    const double first = finish[0] / std::max(count[0], 1);
    for (std::size_t rank = 0; rank < finish.size(); ++rank) {
      const double mean = finish[rank] / std::max(count[rank], 1);
      std::printf("%7zu  %19.3f  %13.2f\n", rank + 1, mean / 1e6, mean / first);
    }
    return 0;
  });
}
