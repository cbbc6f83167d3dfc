// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// pool_major: a switching loop that gathers from the pool instead of around the lanes, on the
// Monte Carlo branch test (docs/decisions.md, "A pool-major switching loop"). Each warp keeps
// up to --capacity contexts in shared memory in two rings, those marching and those waiting at
// the branch; every visit takes up to 32 contexts of one path into the lanes, runs one step and
// puts them back. The library's switching keeps a context on its lane while its path wins the
// vote and swaps only the others. Outputs are compared with vanilla's bit for bit.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "baselines/vanilla.cuh"
#include "checked_cli.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/error.hpp"
#include "microsched/switching/divergent_program.cuh"
#include "montecarlo_branch/montecarlo_branch_program.cuh"
#include "program_main.hpp"

namespace {

using microsched::kernels::montecarlo_branch_program;
constexpr unsigned full_mask = 0xffffffffu;
constexpr int warps_per_block = 4;

//! The step's gate: on a march visit the lanes march and a context that reaches the branch
//! parks; on a branch visit the lanes start at the branch and run it.
struct pool_major_gate {
  bool active_;
  bool at_branch_;
  bool parked = false;
  [[nodiscard]] __device__ bool active() const { return active_; }
  template <int K>
  [[nodiscard]] __device__ bool take(microsched::switching::branch_index<K>, bool cond) {
    if (at_branch_) {
      active_ = true;
      return true;
    }
    if (cond) {
      active_ = false;
      parked = true;
    }
    return false;
  }
};

//! One managed branch only. Counts and ring heads are warp-uniform (computed from ballots).
template <class Program, int Capacity>
__global__ void __launch_bounds__(warps_per_block * 32)
    pool_major_kernel(Program program, unsigned n, unsigned* next) {
  static_assert(Program::managed_branches == 1, "the probe handles one managed branch");
  using context = typename Program::context;
  struct pool {
    context contexts[Capacity];
    unsigned task[Capacity];
    std::uint16_t marching[Capacity], waiting[Capacity], free_slots[Capacity];
  };
  // Raw storage: the context's member initialisers would make a __shared__ object dynamic.
  __shared__ alignas(16) unsigned char storage[sizeof(pool) * warps_per_block];
  pool& p = reinterpret_cast<pool*>(storage)[threadIdx.x / 32];
  const int lane = static_cast<int>(threadIdx.x % 32);
  const unsigned below = (1u << lane) - 1;
  for (int i = lane; i < Capacity; i += 32) p.free_slots[i] = static_cast<std::uint16_t>(i);
  int free_count = Capacity, march_head = 0, march_count = 0, wait_head = 0, wait_count = 0;
  bool source_empty = false;
  __syncwarp();
  for (;;) {
    while (!source_empty && free_count > 0) {  // the pool is kept full from the task source
      const int want = min(free_count, 32);
      unsigned first = 0;
      if (lane == 0) first = atomicAdd(next, static_cast<unsigned>(want));
      first = __shfl_sync(full_mask, first, 0);
      if (first >= n) {
        source_empty = true;
        break;
      }
      const int got = static_cast<int>(min(static_cast<unsigned>(want), n - first));
      if (lane < got) {
        const int s = p.free_slots[free_count - 1 - lane];
        p.contexts[s] = program.begin(first + lane);
        p.task[s] = first + lane;
        p.marching[(march_head + march_count + lane) % Capacity] = static_cast<std::uint16_t>(s);
      }
      free_count -= got;
      march_count += got;
      source_empty = got < want;
      __syncwarp();
    }
    if (march_count == 0 && wait_count == 0) return;
    // A full warp at the branch runs it; otherwise the lanes march, unless fewer march than wait.
    const bool branch =
        wait_count >= 32 || march_count == 0 || (march_count < 32 && wait_count > march_count);
    int slot = -1;
    if (branch) {
      const int take = min(wait_count, 32);
      if (lane < take) slot = p.waiting[(wait_head + lane) % Capacity];
      wait_head = (wait_head + take) % Capacity;
      wait_count -= take;
    } else {
      const int take = min(march_count, 32);
      if (lane < take) slot = p.marching[(march_head + lane) % Capacity];
      march_head = (march_head + take) % Capacity;
      march_count -= take;
    }
    __syncwarp();
    bool to_wait = false, to_march = false, finished = false;
    if (slot >= 0) {
      context c = p.contexts[slot];
      pool_major_gate gate{!branch, branch};
      if (program.step(c, gate)) {
        program.end(p.task[slot], c);
        finished = true;
      } else {
        p.contexts[slot] = c;
        to_wait = gate.parked;
        to_march = !gate.parked;
      }
    }
    const unsigned waits = __ballot_sync(full_mask, to_wait);
    const unsigned marches = __ballot_sync(full_mask, to_march);
    const unsigned ends = __ballot_sync(full_mask, finished);
    const auto at = static_cast<std::uint16_t>(slot);
    if (to_wait) p.waiting[(wait_head + wait_count + __popc(waits & below)) % Capacity] = at;
    if (to_march) p.marching[(march_head + march_count + __popc(marches & below)) % Capacity] = at;
    if (finished) p.free_slots[free_count + __popc(ends & below)] = at;
    wait_count += __popc(waits);
    march_count += __popc(marches);
    free_count += __popc(ends);
    __syncwarp();
  }
}

struct timed_result {
  float median_ms;
  bool equal;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace microsched;
  CLI::App app{
      "Times a pool-major switching loop on the Monte Carlo branch test beside vanilla (windows 1 "
      "and 16), for pools of 64, 128 and 256 contexts a warp at march windows 16, 32 and 64, "
      "medians of --runs runs, every output compared with vanilla's. The library's default for "
      "the same test: montecarlo_branch --p P --tasks N.\n"
      "Example: pool_major --tasks 524288 --p 0.01"};
  unsigned tasks = 524288;
  float p = 0.01f;
  int runs = 7;
  programs::add_checked(app, "--tasks", tasks, "tasks", 1u, 1u << 26);
  programs::add_checked(app, "--p", p, "probability of the branch per iteration", 0.0f, 1.0f);
  programs::add_checked(app, "--runs", runs, "timed runs per row (median)", 1, 1000);
  MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);

  return programs::run_main("pool_major", [&] {
    programs::require_gpu();
    int sms = 0;
    MICROSCHED_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const std::size_t n = tasks;
    device_buffer<std::uint32_t> sum(n), entered(n), want_sum(n), want_entered(n), next(1);
    montecarlo_branch_program program;
    program.probability = p;
    program.sum_out = want_sum.data();
    program.entered_out = want_entered.data();
    const auto vanilla = [&](const montecarlo_branch_program& q) {
      baselines::run_vanilla(switching::divergent_program<montecarlo_branch_program>{q}, tasks,
                             nullptr);
    };
    vanilla(program);
    MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
    const std::vector<std::uint32_t> ref_sum = want_sum.to_host();
    const std::vector<std::uint32_t> ref_entered = want_entered.to_host();
    program.sum_out = sum.data();
    program.entered_out = entered.data();

    cudaEvent_t start = nullptr, stop = nullptr;
    MICROSCHED_CUDA_TRY(cudaEventCreate(&start));
    MICROSCHED_CUDA_TRY(cudaEventCreate(&stop));
    const auto time = [&](auto&& launch) {
      std::vector<float> ms;
      bool equal = true;
      for (int r = 0; r < runs + 1; ++r) {  // the first run warms up
        sum.fill_bytes(0xff);
        entered.fill_bytes(0xff);
        next.fill_bytes(0);
        MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
        MICROSCHED_CUDA_TRY(cudaEventRecord(start));
        launch();
        MICROSCHED_CUDA_TRY(cudaEventRecord(stop));
        MICROSCHED_CUDA_TRY(cudaEventSynchronize(stop));
        float t = 0;
        MICROSCHED_CUDA_TRY(cudaEventElapsedTime(&t, start, stop));
        if (r > 0) ms.push_back(t);
        equal = equal && sum.to_host() == ref_sum && entered.to_host() == ref_entered;
      }
      std::sort(ms.begin(), ms.end());
      return timed_result{ms[ms.size() / 2], equal};
    };
    int mismatches = 0;
    const auto row = [&](const std::string& name, const timed_result& r) {
      std::printf("%-46s %9.3f ms  %s\n", name.c_str(), r.median_ms,
                  r.equal ? "equal to vanilla" : "MISMATCH");
      mismatches += r.equal ? 0 : 1;
    };
    std::printf("pool_major: %u tasks, p = %g, %d SMs, medians of %d runs\n", tasks, p, sms, runs);
    for (const unsigned window : {1u, 16u}) {
      montecarlo_branch_program q = program;
      q.march_window = window;
      row("vanilla w" + std::to_string(window), time([&] { vanilla(q); }));
    }
    const auto pooled = [&](auto kernel, int capacity) {
      int fit = 0;
      MICROSCHED_CUDA_TRY(cudaFuncSetAttribute(
          kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
      MICROSCHED_CUDA_TRY(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, warps_per_block * 32, 0));
      for (const int blocks_per_sm : {4, 8}) {
        if (blocks_per_sm > fit) continue;
        for (const unsigned window : {16u, 32u, 64u}) {
          montecarlo_branch_program q = program;
          q.march_window = window;
          row("pool-major " + std::to_string(capacity) + " contexts, " +
                  std::to_string(blocks_per_sm * warps_per_block) + " warps/SM, w" +
                  std::to_string(window),
              time([&] {
                kernel<<<sms * blocks_per_sm, warps_per_block * 32>>>(q, tasks, next.data());
                MICROSCHED_CHECK_LAUNCH("pool_major kernel");
              }));
        }
      }
    };
    pooled(pool_major_kernel<montecarlo_branch_program, 64>, 64);
    pooled(pool_major_kernel<montecarlo_branch_program, 128>, 128);
    pooled(pool_major_kernel<montecarlo_branch_program, 256>, 256);
    MICROSCHED_CUDA_TRY(cudaEventDestroy(start));
    MICROSCHED_CUDA_TRY(cudaEventDestroy(stop));
    if (mismatches > 0) {
      std::fprintf(stderr, "pool_major: error: %d rows differ from vanilla\n", mismatches);
      return 1;
    }
    return 0;
  });
}
