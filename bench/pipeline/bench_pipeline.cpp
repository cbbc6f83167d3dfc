// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Google Benchmark: the three pipeline workloads, original loop against the pipelined loop, both
// timed end to end on the host clock in the same benchmark iteration (speedup counter), plus
// unwrap's kernels alone. The pipeline statistics of the last run go to stderr.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "benchmark_main.hpp"
#include "microsched/device.hpp"
#include "microsched/measure/timing_stats.hpp"
#include "microsched/pipeline/chunk_pipeline.hpp"
#include "microsched/pipeline/cuda_backend.hpp"
#include "microsched/pipeline/kernel_split.hpp"
#include "pipeline_workloads.hpp"
#include "program_main.hpp"

using namespace microsched::pipeline;
using namespace microsched::pipeline::workloads;

namespace {

double seconds_of(const auto& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

//! What the timed pairs of run_pair gather, over every pair.
struct pair_record {
  double org = 0, opt = 0;  //!< seconds of the original and the pipelined loops, summed
  std::size_t optimised = 0, total = 0;
  std::vector<double> ratios;  //!< original / pipelined, per pair
  std::vector<std::pair<double, double>> pairs;
  //! Host launch timeline of each pipelined run: when its last launch returned, and the longest
  //! gap between two launches after the profiling iterations (a gap longer than a kernel starves
  //! the GPU; the original loop launches far faster than its kernels run).
  std::vector<std::pair<double, double>> timeline;
  std::vector<std::string> runs;  //!< optimised chunks and control state of each pipelined run
  //! Over every run: the transformation time of each chunk that had one (finished or abandoned),
  //! and the GPU step of each optimised and original iteration while timed: a helper that lost
  //! its core for a time slice shows as a tail here, not in the means.
  std::vector<double> transforms, steps_optimised, steps_original;
  std::size_t not_ready = 0;
  //! The iterations of the run that fared worst against its original (smallest ratio): where a
  //! loss comes from, step by step.
  std::vector<iteration_record> worst;
  double worst_ratio = 1e30, worst_org = 0, worst_opt = 0;
  std::string worst_reason;

  //! Adds one pair: `o` and `q` seconds, `stats` the pipelined run's statistics.
  void add(double o, double q, const pipeline_statistics& stats) {
    org += o;
    opt += q;
    ratios.push_back(o / q);
    pairs.emplace_back(o * 1e3, q * 1e3);
    const auto& its = stats.iterations;
    if (o / q < worst_ratio) {
      worst_ratio = o / q;
      worst = its;
      worst_org = o * 1e3;
      worst_opt = q * 1e3;
      worst_reason = stats.controller_reason;
    }
    double gap = 0;
    for (std::size_t k = 3; k < its.size(); ++k)
      gap = std::max(gap, its[k].launch_ms - its[k - 1].launch_ms);
    timeline.emplace_back(its.empty() ? 0 : its.back().launch_ms, gap);
    runs.push_back(std::to_string(stats.optimised_count()) + ":" + stats.controller_state + "[" +
                   std::to_string(stats.helpers_active) + "h]" +
                   (stats.controller_reason.empty() ? "" : "(" + stats.controller_reason + ")"));
    for (const iteration_record& it : its) {
      if (it.transform_ms > 0) transforms.push_back(it.transform_ms);
      if (it.step_ms > 0) (it.optimised ? steps_optimised : steps_original).push_back(it.step_ms);
      not_ready += it.reason == fallback::not_ready ? 1 : 0;
    }
    optimised += stats.optimised_count();
    total += stats.iterations.size();
  }
};

//! Warm-up: one original loop, then three pipelined ones; returns their optimised chunks and
//! control states. The first pipelined runs after the program was built are slower (pages and
//! caches are cold); they are printed, not timed.
std::string warm_up(cuda_backend& backend, any_program& p, chunk_pipeline<cuda_backend>& pipe) {
  chunk_pipeline<cuda_backend>::run_original(backend, p);
  std::string runs;
  for (int k = 0; k < 3; ++k) {
    const auto& s = pipe.run(p);
    runs += " " + std::to_string(s.optimised_count()) + ":" + s.controller_state;
  }
  return runs;
}

//! One line of quantiles of `v` (ms) on stderr.
void print_quantiles(const char* name, std::vector<double> v) {
  std::cerr << name << " (" << v.size() << ")";
  if (v.empty()) return void(std::cerr << "\n");
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    return v[std::min(v.size() - 1, static_cast<std::size_t>(q * double(v.size())))];
  };
  std::cerr << " p10 " << at(0.1) << " p50 " << at(0.5) << " p90 " << at(0.9) << " max " << v.back()
            << " ms\n";
}

//! Every pair's times, the launch timelines, the runs' control states and the quantiles.
void print_pairs(const pair_record& r, const std::string& warm_up_runs) {
  std::cerr << "\npairs original/pipelined ms:";
  for (std::size_t k = 0; k < r.pairs.size(); ++k)
    std::cerr << " " << r.pairs[k].first << "/" << r.pairs[k].second;
  std::cerr << "\npipelined last launch / longest launch gap (from iteration 3) ms:";
  for (const auto& [last, gap] : r.timeline) std::cerr << " " << last << "/" << gap;
  std::cerr << "\nwarm-up runs (optimised:control):" << warm_up_runs;
  std::cerr << "\nruns (optimised:control[helpers]):";
  for (const auto& x : r.runs) std::cerr << " " << x;
  std::cerr << "\n";
  print_quantiles("all runs: transformation", r.transforms);
  print_quantiles("all runs: optimised step", r.steps_optimised);
  print_quantiles("all runs: original step", r.steps_original);
  std::cerr << "all runs: chunks not ready " << r.not_ready << "\n";
}

//! The worst run, iteration by iteration, on stderr.
void print_worst_run(const pair_record& r) {
  // One token per iteration: O optimised / o original, then launch (host ms since the run
  // started), step and kernel (GPU ms; -1 untimed), transformation (ms; -1 none).
  std::cerr << "worst run " << r.worst_org << "/" << r.worst_opt << " ms (" << r.worst_reason
            << "); i:kind:reason launch/step/kernel/transform:";
  std::size_t untimed = 0;  // originals launched after the control switched off: listed as a count
  for (const iteration_record& it : r.worst) {
    if (it.reason == fallback::controller_off && it.step_ms < 0 && it.transform_ms < 0) {
      ++untimed;
      continue;
    }
    char token[160];
    std::snprintf(token, sizeof token, " %zu:%c:%s %.2f/%.2f/%.2f/%.2f", it.iteration,
                  it.optimised ? 'O' : 'o', to_string(it.reason), it.launch_ms, it.step_ms,
                  it.kernel_ms, it.transform_ms);
    std::cerr << token;
  }
  if (untimed > 0)
    std::cerr << " (+" << untimed << " originals after the control switched off, last launch "
              << (r.worst.empty() ? 0.0 : r.worst.back().launch_ms) << " ms)";
  std::cerr << "\n";
}

void run_pair(benchmark::State& state, program_base& program, const pipeline_arguments& args) {
  cuda_backend backend;
  any_program p{program};
  chunk_pipeline pipe(backend, args);
  const std::string warm_up_runs = warm_up(backend, p, pipe);
  pair_record r;
  for (auto _ : state) {
    const double o = seconds_of([&] { chunk_pipeline<cuda_backend>::run_original(backend, p); });
    const double q = seconds_of([&] { (void)pipe.run(p); });
    r.add(o, q, pipe.statistics());
    state.SetIterationTime(q);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["original_ms"] = r.org / n * 1e3;
  state.counters["pipelined_ms"] = r.opt / n * 1e3;
  state.counters["speedup"] = r.org / r.opt;
  state.counters["speedup_median"] =
      r.ratios.empty() ? 0 : microsched::summarize(r.ratios).median_ms;
  state.counters["optimised_share"] = r.total ? double(r.optimised) / double(r.total) : 0;
  state.counters["host_MB"] = double(pipe.statistics().host_bytes) / 1e6;
  state.counters["device_MB"] = double(pipe.statistics().device_bytes) / 1e6;
  std::cerr << "== " << program.describe() << " | memory_limit=" << args.memory_limit;
  print_pairs(r, warm_up_runs);
  print_worst_run(r);
  pipe.statistics().print(std::cerr);
}

pipeline_arguments adaptive(int depth, int threads) {
  pipeline_arguments a;
  a.depth = depth;
  a.threads_per_chunk = threads;
  a.memory_limit = std::size_t{1} << 30;
  return a;
}

void bm_gafort(benchmark::State& state) {
  auto program = make_gafort({});
  run_pair(state, *program,
           adaptive(static_cast<int>(state.range(0)), static_cast<int>(state.range(1))));
}
//! unwrap end to end with the defaults (5 threads per chunk, Δ = 3; the pool has
//! min(15, cores - 1) helpers, each whole chunk cut into as many pieces). range(0): distinct
//! frames cycled through (4: 64 MB, which the host's L3 can hold across runs; 32: every chunk a
//! new frame, 512 MB). range(1) = 1: a 1.5 MB cap (one reordered slot needs 2 MiB), so job
//! swapping runs instead.
void bm_unwrap(benchmark::State& state) {
  unwrap_options options;
  options.frames = static_cast<int>(state.range(0));
  auto program = make_unwrap(options);
  const bool job_swapping = state.range(1) == 1;
  auto args = adaptive(3, 5);
  if (job_swapping) args.memory_limit = 1500000;
  args.granularity = 4096;  // finer cuts balance the pieces (equal cost, piece_bounds)
  run_pair(state, *program, args);
}
//! Black-Scholes: nothing to gain, so the cost of trying. range(0) = 1: a memory limit no method
//! fits, so the driver launches the original kernels with no helper and no event (its floor).
void bm_blackscholes(benchmark::State& state) {
  auto program = make_blackscholes({});
  auto args = adaptive(1, 2);
  if (state.range(0) == 1) args.memory_limit = 1;
  run_pair(state, *program, args);
}
//! Kernel splitting under a loop-carried dependence: the original loop against the split loop on
//! the same population (reset before each run), range(0) = r in percent, 7 helper threads.
void bm_carried(benchmark::State& state) {
  auto program = make_carried({});
  any_split_program p{*program};
  cuda_backend backend;
  split_arguments args;
  args.ratio = static_cast<double>(state.range(0)) / 100.0;
  args.threads = 7;
  split_loop loop(backend, args);
  split_loop<cuda_backend>::run_original(backend, p);  // warm-up
  double org = 0, opt = 0;
  std::size_t optimised = 0, total = 0;
  for (auto _ : state) {
    program->reset();
    const double o = seconds_of([&] { split_loop<cuda_backend>::run_original(backend, p); });
    program->reset();
    const double q = seconds_of([&] { (void)loop.run(p); });
    org += o;
    opt += q;
    optimised += loop.statistics().optimised_count();
    total += loop.statistics().iterations.size();
    state.SetIterationTime(q);
  }
  state.counters["original_ms"] = org / double(state.iterations()) * 1e3;
  state.counters["split_ms"] = opt / double(state.iterations()) * 1e3;
  state.counters["speedup"] = org / opt;
  state.counters["optimised_share"] = total ? double(optimised) / double(total) : 0;
  std::cerr << "== " << program->describe() << " | kernel split r=" << args.ratio << "\n";
  loop.statistics().print(std::cerr);
}
//! Host only: unwrap's reorder of one frame on range(0) helpers (one piece each, all at once,
//! frames cycled as in the loop); range(1): distinct frames; range(2) = 1 pieces of equal cost
//! (default), 0 of equal size.
void bm_unwrap_gather(benchmark::State& state) {
  unwrap_options options;
  options.frames = static_cast<int>(state.range(1));
  options.weighted_pieces = state.range(2) == 1;
  std::vector<double> ms;
  double mean = 0;
  for (auto _ : state) {
    ms = time_unwrap_gather(options, static_cast<int>(state.range(0)), 48);
    mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
    state.SetIterationTime(mean * 1e-3);
  }
  const microsched::timing_stats frames = microsched::summarize(ms);
  state.counters["frame_ms_mean"] = mean;
  state.counters["frame_ms_median"] = frames.median_ms;
  state.counters["frame_ms_min"] = frames.min_ms;
  state.counters["frame_ms_max"] = frames.max_ms;
}
//! Host only: read (range(1) = 0) or write (1) bandwidth of range(0) threads over 512 MB.
void bm_host_bandwidth(benchmark::State& state) {
  const std::size_t bytes = std::size_t{512} << 20;
  const auto threads = static_cast<std::size_t>(state.range(0));
  const bool write = state.range(1) == 1;
  std::vector<std::uint64_t> buffer(bytes / 8, 1);
  std::vector<std::uint64_t> sums(threads * 8, 0);
  double best = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (std::size_t k = 0; k < threads; ++k)
      pool.emplace_back([&, k] {
        const std::size_t words = buffer.size() / threads;
        std::uint64_t* p = buffer.data() + k * words;
        if (write) {
          for (std::size_t i = 0; i < words; ++i) p[i] = i;
        } else {
          std::uint64_t a = 0, b = 0, c = 0, d = 0;
          for (std::size_t i = 0; i + 4 <= words; i += 4) {
            a += p[i];
            b += p[i + 1];
            c += p[i + 2];
            d += p[i + 3];
          }
          sums[k * 8] = a + b + c + d;
        }
      });
    for (auto& t : pool) t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, static_cast<double>(bytes) / s * 1e-9);
    state.SetIterationTime(s);
  }
  benchmark::DoNotOptimize(sums.data());
  state.counters["GB_per_s_best"] = best;
}
void bm_unwrap_kernels(benchmark::State& state) {
  double org = 0, opt = 0;
  for (auto _ : state) {
    const auto k = time_unwrap_kernels({}, {.warmup = 3, .repetitions = 21});
    org = k.original.median_ms;
    opt = k.optimised.median_ms;
    state.SetIterationTime(opt * 1e-3);
  }
  state.counters["original_kernel_ms"] = org;
  state.counters["reordered_kernel_ms"] = opt;
  state.counters["speedup"] = org / opt;
}

}  // namespace

BENCHMARK(bm_gafort)
    ->ArgNames({"depth", "threads"})
    ->Args({3, 5})
    ->Args({2, 7})
    ->Iterations(5)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_unwrap)
    ->ArgNames({"frames", "job_swapping"})
    ->Args({4, 0})
    ->Args({32, 0})
    ->Args({4, 1})
    ->Iterations(10)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_unwrap_gather)
    ->ArgNames({"helpers", "frames", "equal_cost"})
    ->Args({15, 4, 1})
    ->Args({15, 32, 1})
    ->Args({15, 4, 0})
    ->Args({8, 4, 1})
    ->Args({1, 4, 0})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_host_bandwidth)
    ->Args({1, 0})
    ->Args({15, 0})
    ->Args({15, 1})
    ->Iterations(4)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_unwrap_kernels)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_carried)
    ->Arg(30)
    ->Arg(50)
    ->Arg(70)
    ->Iterations(5)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_blackscholes)
    ->ArgNames({"floor"})
    ->Arg(0)
    ->Arg(1)
    ->Iterations(40)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  // --help and unknown arguments are answered before the GPU is looked for; without a GPU the
  // program says why and exits with programs::no_gpu_exit_code (77), like every other program.
  MICROSCHED_PARSE_BENCHMARK_ARGUMENTS("bench_pipeline", argc, argv);
  return microsched::programs::run_main("bench_pipeline", [] {
    microsched::programs::require_gpu();
    std::printf("device: %s\n", microsched::describe(microsched::current_device()).c_str());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  });
}
