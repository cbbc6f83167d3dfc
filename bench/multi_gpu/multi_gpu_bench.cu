// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One task range over 1, 2 and 4 GPUs of one process: for each workload, the single-GPU
// scheduler's default on GPU 0 (the baseline), then multi_scheduler on the first N GPUs in each
// variant (the default dynamic claims, the static equal split, and the alternatives); wall-clock
// medians (the run enqueued until every GPU has finished), scaling against the baseline, and each
// configuration's outputs, gathered from the GPUs that ran them, checked against the baseline's.
// Then the cost of one coarse claim: a host atomic between the GPUs' threads, a whole claim with
// its launch, and a system-scope device atomic in pinned host memory and in a peer GPU's memory.
// The workloads are in bench_julia.cu, bench_walks.cu and bench_skewed.cu.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "checked_cli.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/error.hpp"
#include "microsched/multi_gpu/multi_scheduler.cuh"
#include "multi_gpu_bench.cuh"

using namespace microsched;
using namespace microsched::multi_gpu;
using namespace microsched::bench;

namespace {

__global__ void system_atomics(unsigned long long* counter, int n, unsigned long long* sink) {
  unsigned long long last = 0;
  for (int i = 0; i < n; ++i) last = atomicAdd_system(counter, 1ull);
  *sink = last;
}

//! Microseconds per atomicAdd_system from one thread of each of `g` GPUs at once, on `counter`.
double device_atomic_us(int g, unsigned long long* counter, int n) {
  std::vector<device_buffer<unsigned long long>> sinks;
  std::vector<std::unique_ptr<cuda_stream>> streams;
  for (int d = 0; d < g; ++d) {
    const device_guard on(d);
    sinks.emplace_back(1);
    streams.push_back(std::make_unique<cuda_stream>());
    system_atomics<<<1, 1, 0, streams.back()->get()>>>(counter, 10, sinks.back().data());
    MICROSCHED_CHECK_LAUNCH("system_atomics");
    streams.back()->synchronize();
  }
  const auto start = clock_type::now();
  for (int d = 0; d < g; ++d) {
    const device_guard on(d);
    system_atomics<<<1, 1, 0, streams[static_cast<std::size_t>(d)]->get()>>>(
        counter, n, sinks[static_cast<std::size_t>(d)].data());
    MICROSCHED_CHECK_LAUNCH("system_atomics");
  }
  for (int d = 0; d < g; ++d) {
    const device_guard on(d);
    streams[static_cast<std::size_t>(d)]->synchronize();
  }
  return ms_since(start) * 1000.0 / n;
}

struct empty_program {  //!< tasks that end at their first step: a claim's cost without work
  struct context {};
  __device__ context begin(task_id) const { return {}; }
  __device__ bool step(context&) const { return true; }
  __device__ void end(task_id, const context&) const {}
};

void claim_costs(const multi_options& opt, int visible, std::vector<multi_row>& rows) {
  for (const int g : opt.gpus) {
    if (g > visible || g < 2) continue;
    // (a) the host atomic alone: g threads claiming single tasks from one counter.
    claim_settings s;
    s.min_tasks = 1;
    s.granules = task_id{1} << 30;
    s.share_divisor = task_id{1} << 40;
    host_claim_counter counter;
    const int per_thread = 200000;
    const task_id count = task_id{1} << 40;
    const auto start = clock_type::now();
    std::vector<std::thread> threads;
    for (int t = 0; t < g; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < per_thread; ++i) (void)take_claim(counter, count, g, 1, s);
      });
    }
    for (auto& t : threads) t.join();
    const double host_us = ms_since(start) * 1000.0 / per_thread;
    // (b) a whole claim: claim, the scheduler's run of 4096 empty tasks, the event, per GPU.
    multi_arguments args;
    for (int d = 0; d < g; ++d) args.devices.push_back(d);
    args.claims.min_tasks = 4096;
    args.claims.interleave = false;  // claims of exactly 4096 tasks
    args.claims.share_divisor = 256;
    args.claims.granules = 256;
    args.schedule.strategy = pool_strategy::direct;
    multi_scheduler<empty_program> sched(args);
    const task_id tasks = task_id{4096} * 256 * static_cast<task_id>(g);
    sched.run(empty_program{}, tasks).wait();
    const auto whole_start = clock_type::now();
    multi_run run = sched.run(empty_program{}, tasks);
    run.wait();
    const double whole_ms = ms_since(whole_start);
    std::size_t claims = 0;
    for (const auto& mine : run.claims()) claims = std::max(claims, mine.size());
    const double whole_us = whole_ms * 1000.0 / static_cast<double>(claims);
    // (c) a system-scope device atomic: in pinned host memory, and in GPU 0's memory from peers.
    const int n = 20000;
    unsigned long long* pinned = nullptr;
    MICROSCHED_CUDA_TRY(cudaHostAlloc(&pinned, sizeof(unsigned long long),
                                      cudaHostAllocMapped | cudaHostAllocPortable));
    *pinned = 0;
    const double pinned_us = device_atomic_us(g, pinned, n);
    cudaFreeHost(pinned);
    std::string peer = "no peer access";
    int all_peers = 1;
    for (int d = 1; d < g; ++d) {
      int can = 0;
      MICROSCHED_CUDA_TRY(cudaDeviceCanAccessPeer(&can, d, 0));
      all_peers &= can;
    }
    if (all_peers != 0) {
      for (int d = 1; d < g; ++d) {
        const device_guard on(d);
        const cudaError_t e = cudaDeviceEnablePeerAccess(0, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) MICROSCHED_CUDA_TRY(e);
        (void)cudaGetLastError();
      }
      device_buffer<unsigned long long> on_zero(1);
      on_zero.fill_bytes(0);
      MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
      std::ostringstream p;
      p.precision(3);
      p << device_atomic_us(g, on_zero.data(), n) << " us (GPU 0's memory, peers over NVLink/PCIe)";
      peer = p.str();
    }
    std::ostringstream d;
    d.precision(3);
    d << "host atomic " << host_us * 1000.0 << " ns; whole claim (claim + run of 4096 empty tasks"
      << " + event) " << whole_us << " us; device atomicAdd_system: pinned host memory "
      << pinned_us << " us, " << peer;
    rows.push_back({"claim", g, "dynamic", whole_us / 1000.0, 0, d.str()});
    std::printf("claim cost, %d GPUs: %s\n", g, d.str().c_str());
    std::fflush(stdout);
  }
}

//! Fills the options' GPU counts, workloads and variants from their comma-separated lists;
//! throws std::invalid_argument naming a bad or missing item, before any GPU work.
void parse_lists(const std::string& gpus, const std::string& workloads, const std::string& variants,
                 multi_options& opt) {
  opt.gpus.clear();
  std::stringstream list(gpus);
  for (std::string item; std::getline(list, item, ',');) {
    opt.gpus.push_back(programs::parse_checked<int>("--gpus", item, 1, 64));
  }
  opt.workloads.clear();
  std::stringstream names(workloads);
  for (std::string item; std::getline(names, item, ',');) {
    if (item != "julia" && item != "walks" && item != "skewed") {
      throw std::invalid_argument("--workloads = '" + item + "': julia, walks or skewed");
    }
    opt.workloads.push_back(item);
  }
  opt.variants.clear();
  std::stringstream kinds(variants);
  for (std::string item; std::getline(kinds, item, ',');) {
    (void)variant_arguments(item, 1);  // refuses an unknown name before any GPU work
    opt.variants.push_back(item);
  }
  if (opt.gpus.empty()) throw std::invalid_argument("--gpus = '': at least one count");
  if (opt.variants.empty()) throw std::invalid_argument("--variants = '': at least one");
}

//! The summary table: every row but the claim costs, against one GPU and the equal split.
void print_table(const std::vector<multi_row>& rows) {
  std::printf(
      "\n| workload | GPUs | variant | ms (median) | x one GPU's default | x equal split |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const multi_row& r : rows) {
    if (r.workload == "claim") continue;
    double equal = 0;
    for (const multi_row& e : rows) {
      if (e.workload == r.workload && e.gpus == r.gpus && e.variant == "equal") equal = e.ms;
    }
    std::printf("| %s | %d | %s | %.3f | %.2fx | ", r.workload.c_str(), r.gpus, r.variant.c_str(),
                r.ms, r.scaling);
    if (equal > 0) {
      std::printf("%.2fx |\n", equal / r.ms);
    } else {
      std::printf("- |\n");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "One task range over 1, 2 and 4 GPUs of one process: the single-GPU default on GPU 0, then "
      "dynamic claims and the static equal split on the first N GPUs, outputs checked; then the "
      "cost of one claim.\nExample: multi_gpu_bench --gpus 1,2,4 --workloads julia,walks,skewed"};
  multi_options opt;
  std::string gpus = "1,2,4";
  std::string workloads = "julia,walks,skewed";
  std::string variants = "dynamic,equal";
  app.add_option("--gpus", gpus, "GPU counts, comma-separated (each uses GPUs 0..N-1)")
      ->capture_default_str();
  app.add_option("--workloads", workloads, "julia, walks, skewed, comma-separated")
      ->capture_default_str();
  app.add_option(
         "--variants", variants,
         "dynamic (the default claims), or parts joined by '+': equal (static equal "
         "split), contiguous (guided contiguous claims), guided (guided interleaved "
         "claims), claims-N (N equal interleaved claims per GPU), last-N (guided interleaved "
         "claims down to 1/N of a GPU's share), streams-N (N streams per GPU), fixed (every GPU "
         "runs the single-GPU default's choice); "
         "comma-separated")
      ->capture_default_str();
  bench::add_workload_options(app, opt.sizes, opt.warmup, opt.repetitions);
  app.add_flag("!--no-check", opt.check, "skip the output check against one GPU");
  app.add_flag("!--no-claim-costs", opt.claim_costs, "skip the claim-cost measurements");
  MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);

  return programs::run_main("multi_gpu_bench", [&] {
    parse_lists(gpus, workloads, variants, opt);
    programs::require_gpu();
    const int visible = cuda_device_count();
    for (int d = 0; d < visible; ++d) {
      const device_guard on(d);
      std::printf("GPU %d: %s\n", d, describe(current_device()).c_str());
    }
    std::vector<multi_row> rows;
    for (const std::string& w : opt.workloads) {
      if (w == "julia") {
        bench_julia(opt, visible, rows);
      } else if (w == "walks") {
        bench_walks(opt, visible, rows);
      } else {
        bench_skewed(opt, visible, rows);
      }
    }
    if (opt.claim_costs) claim_costs(opt, visible, rows);
    print_table(rows);
    return 0;
  });
}
