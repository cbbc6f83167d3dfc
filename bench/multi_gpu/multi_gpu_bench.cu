// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One task range over 1, 2 and 4 GPUs of one process: for each workload, the single-GPU
// scheduler's default on GPU 0 (the baseline), then multi_scheduler on the first N GPUs with
// dynamic claims and with the static equal split; wall-clock medians (the run enqueued until
// every GPU has finished), scaling against the baseline, and each configuration's outputs,
// gathered from the GPUs that ran them, checked against the baseline's. Then the cost of one
// coarse claim: a host atomic between the GPUs' threads, a whole claim with its launch, and a
// system-scope device atomic in pinned host memory and in a peer GPU's memory.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "checked_cli.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/error.hpp"
#include "microsched/multi_gpu/copy_claimed.hpp"
#include "microsched/multi_gpu/multi_scheduler.cuh"
#include "multi_gpu_workloads.cuh"

using namespace microsched;
using namespace microsched::multi_gpu;

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct options {
  std::vector<int> gpus{1, 2, 4};
  std::vector<std::string> workloads{"julia", "walks", "skewed"};
  bench::workload_sizes sizes;
  int warmup = 6;
  int repetitions = 7;
  bool check = true;
  bool claim_costs = true;
};

struct row {
  std::string workload;
  int gpus = 1;
  std::string split;
  double ms = 0;
  double scaling = 1;
  std::string detail;
};

//! Per-GPU output arrays (`outputs` of them, one uint32 per task), allocated on each GPU once.
struct gpu_outputs {
  gpu_outputs(int devices, int outputs, task_id count) {
    for (int d = 0; d < devices; ++d) {
      const device_guard on(d);
      std::vector<device_buffer<std::uint32_t>> mine;
      for (int o = 0; o < outputs; ++o) mine.emplace_back(count);
      arrays.push_back(std::move(mine));
    }
  }
  std::vector<std::uint32_t*> of(int device) {
    std::vector<std::uint32_t*> p;
    for (auto& a : arrays[static_cast<std::size_t>(device)]) p.push_back(a.data());
    return p;
  }
  std::vector<std::vector<device_buffer<std::uint32_t>>> arrays;  //!< (device, output)
};

//! Benchmarks one workload: `make(pointers)` builds its program over output arrays.
template <class Program, class Make>
void bench_workload(const std::string& name, task_id count, int outputs, Make make,
                    const options& opt, int visible, std::vector<row>& rows) {
  const int most = std::min(visible, *std::max_element(opt.gpus.begin(), opt.gpus.end()));
  gpu_outputs out(most, outputs, count);
  // The baseline: the single-GPU scheduler's default on GPU 0.
  std::vector<std::uint32_t> want;
  double baseline = 0;
  {
    const device_guard on(0);
    const Program program = make(out.of(0));
    scheduler<Program> sched;
    sched.calibrate(program, count);
    std::vector<double> times;
    for (int r = 0; r < opt.warmup + opt.repetitions; ++r) {
      const auto start = clock_type::now();
      sched.run(program, count);
      MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
      if (r >= opt.warmup) times.push_back(ms_since(start));
    }
    baseline = median(times);
    if (opt.check) want = out.arrays[0][0].to_host();
    rows.push_back({name, 1, "single-GPU scheduler", baseline, 1.0, sched.report(count)});
    std::printf("%-7s baseline (scheduler on GPU 0): %.3f ms; %s\n", name.c_str(), baseline,
                sched.report(count).c_str());
    std::fflush(stdout);
  }
  for (const int g : opt.gpus) {
    if (g > visible) {
      std::printf("%-7s %d GPUs: skipped, %d visible\n", name.c_str(), g, visible);
      continue;
    }
    for (const int mode : {0, 1, 2}) {  // dynamic on one stream (default), on two, equal split
      const split_mode split = mode == 2 ? split_mode::equal : split_mode::dynamic;
      if (g == 1 && mode != 0) continue;  // one GPU: one path
      multi_arguments args;
      for (int d = 0; d < g; ++d) args.devices.push_back(d);
      args.split = split;
      if (mode == 1) args.claims.streams = 2;
      const std::string label = mode == 0 ? "dynamic" : mode == 1 ? "dynamic-2-streams" : "equal";
      multi_scheduler<Program> sched(args);
      const auto factory = [&](device_slot s) { return make(out.of(s.device)); };
      std::vector<double> times;
      multi_run last;
      for (int r = 0; r < opt.warmup + opt.repetitions; ++r) {
        const auto start = clock_type::now();
        multi_run run = sched.run(factory, count);
        run.wait();
        if (r >= opt.warmup) times.push_back(ms_since(start));
        last = std::move(run);
      }
      const double ms = median(times);
      std::ostringstream detail;
      detail << "claims per GPU";
      task_id most_tasks = 0;
      task_id fewest = count;
      for (const auto& mine : last.claims()) {
        task_id tasks = 0;
        for (const claimed_range& c : mine) tasks += c.count;
        most_tasks = std::max(most_tasks, tasks);
        fewest = std::min(fewest, tasks);
        detail << " " << mine.size();
      }
      detail << "; tasks per GPU " << fewest << ".." << most_tasks << "; runs "
             << *std::min_element(times.begin(), times.end()) << ".."
             << *std::max_element(times.begin(), times.end()) << " ms";
      if (opt.check) {
        std::vector<std::uint32_t> got(count, 0xffffffffu);
        std::vector<const std::uint32_t*> firsts;
        for (const int d : sched.devices()) firsts.push_back(out.of(d)[0]);
        copy_claimed(last.claims(), sched.devices(), firsts, got.data());
        if (got != want) {
          throw std::runtime_error(name + " on " + std::to_string(g) + " GPUs (" + label +
                                   "): outputs differ from one GPU's");
        }
        detail << "; outputs equal";
      }
      rows.push_back({name, g, label, ms, baseline / ms, detail.str()});
      std::printf("%-7s %d GPUs %-16s %.3f ms  %.2fx  %s\n        %s\n", name.c_str(), g,
                  label.c_str(), ms, baseline / ms, detail.str().c_str(),
                  sched.report(count).c_str());
      std::fflush(stdout);
    }
  }
}

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

void claim_costs(const options& opt, int visible, std::vector<row>& rows) {
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "One task range over 1, 2 and 4 GPUs of one process: the single-GPU default on GPU 0, then "
      "dynamic claims and the static equal split on the first N GPUs, outputs checked; then the "
      "cost of one claim.\nExample: multi_gpu_bench --gpus 1,2,4 --workloads julia,walks,skewed"};
  options opt;
  std::string gpus = "1,2,4";
  std::string workloads = "julia,walks,skewed";
  app.add_option("--gpus", gpus, "GPU counts, comma-separated (each uses GPUs 0..N-1)")
      ->capture_default_str();
  app.add_option("--workloads", workloads, "julia, walks, skewed, comma-separated")
      ->capture_default_str();
  programs::add_checked(app, "--julia-side", opt.sizes.julia_side, "pixels per side", 1, 60000);
  programs::add_checked(app, "--walks", opt.sizes.walks, "Monte Carlo walks", task_id{1},
                        task_id{1} << 34);
  programs::add_checked(app, "--skewed", opt.sizes.skewed, "skewed walks", task_id{1},
                        task_id{1} << 34);
  programs::add_checked(app, "--warmup", opt.warmup, "untimed runs first (calibration)", 0, 1000);
  programs::add_checked(app, "--repetitions", opt.repetitions, "timed runs (median)", 1, 1000);
  app.add_flag("!--no-check", opt.check, "skip the output check against one GPU");
  app.add_flag("!--no-claim-costs", opt.claim_costs, "skip the claim-cost measurements");
  MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);

  return programs::run_main("multi_gpu_bench", [&] {
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
    if (opt.gpus.empty()) throw std::invalid_argument("--gpus = '': at least one count");
    programs::require_gpu();
    const int visible = cuda_device_count();
    for (int d = 0; d < visible; ++d) {
      const device_guard on(d);
      std::printf("GPU %d: %s\n", d, describe(current_device()).c_str());
    }
    std::vector<row> rows;
    for (const std::string& w : opt.workloads) {
      if (w == "julia") {
        const int side = opt.sizes.julia_side;
        bench_workload<kernels::julia_program<float>>(
            "julia", task_id(side) * task_id(side), 1,
            [side](std::vector<std::uint32_t*> p) { return bench::julia_view_program(side, p[0]); },
            opt, visible, rows);
      } else if (w == "walks") {
        bench_workload<kernels::montecarlo_program>(
            "walks", opt.sizes.walks, 2,
            [](std::vector<std::uint32_t*> p) { return bench::walks_program(p[0], p[1]); }, opt,
            visible, rows);
      } else {
        const task_id count = opt.sizes.skewed;
        bench_workload<bench::skewed_walk_program>(
            "skewed", count, 1,
            [count](std::vector<std::uint32_t*> p) { return bench::skewed_program(count, p[0]); },
            opt, visible, rows);
      }
    }
    if (opt.claim_costs) claim_costs(opt, visible, rows);
    std::printf("\n| workload | GPUs | split | ms (median) | x one GPU's default |\n");
    std::printf("|---|---|---|---|---|\n");
    for (const row& r : rows) {
      if (r.workload == "claim") continue;
      std::printf("| %s | %d | %s | %.3f | %.2fx |\n", r.workload.c_str(), r.gpus, r.split.c_str(),
                  r.ms, r.scaling);
    }
    return 0;
  });
}
