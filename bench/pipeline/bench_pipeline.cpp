// Google Benchmark: the three pipeline workloads, original loop against the pipelined loop, both
// timed end to end on the host clock in the same benchmark iteration (speedup counter), plus
// unwrap's kernels alone. The pipeline statistics of the last run go to stderr.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "microsched/device.hpp"
#include "microsched/pipeline/chunk_pipeline.hpp"
#include "microsched/pipeline/cuda_backend.hpp"
#include "pipeline_workloads.hpp"

using namespace microsched::pipeline;
using namespace microsched::pipeline::workloads;

namespace {

double seconds_of(const auto& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void run_pair(benchmark::State& state, program_base& program, const pipeline_arguments& args) {
  cuda_backend backend;
  any_program p{program};
  chunk_pipeline pipe(backend, args);
  chunk_pipeline<cuda_backend>::run_original(backend, p);  // warm-up
  (void)pipe.run(p);
  double org = 0, opt = 0;
  std::size_t optimised = 0, total = 0;
  for (auto _ : state) {
    const double o = seconds_of([&] { chunk_pipeline<cuda_backend>::run_original(backend, p); });
    const double q = seconds_of([&] { (void)pipe.run(p); });
    org += o;
    opt += q;
    optimised += pipe.statistics().optimised_count();
    total += pipe.statistics().iterations.size();
    state.SetIterationTime(q);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["original_ms"] = org / n * 1e3;
  state.counters["pipelined_ms"] = opt / n * 1e3;
  state.counters["speedup"] = org / opt;
  state.counters["optimised_share"] = total ? double(optimised) / double(total) : 0;
  state.counters["host_MB"] = double(pipe.statistics().host_bytes) / 1e6;
  state.counters["device_MB"] = double(pipe.statistics().device_bytes) / 1e6;
  std::cerr << "== " << program.describe() << "\n";
  pipe.statistics().print(std::cerr);
}

pipeline_arguments adaptive(int depth, int threads) {
  pipeline_arguments a;
  a.depth = depth;
  a.threads_per_chunk = threads;
  a.memory_limit = std::size_t{1} << 30;
  return a;
}
pipeline_arguments fixed(int depth, int threads) {
  auto a = adaptive(depth, threads);
  a.control.adaptive = false;
  a.control.fixed_ratio = 1.0;
  return a;
}

void bm_gafort(benchmark::State& state) {
  auto program = make_gafort({});
  run_pair(state, *program, adaptive(2, static_cast<int>(state.range(0))));
}
void bm_unwrap(benchmark::State& state) {
  auto program = make_unwrap({});
  run_pair(state, *program, state.range(1) ? fixed(3, static_cast<int>(state.range(0)))
                                            : adaptive(3, static_cast<int>(state.range(0))));
}
void bm_blackscholes(benchmark::State& state) {
  auto program = make_blackscholes({});
  run_pair(state, *program, adaptive(1, 2));
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

BENCHMARK(bm_gafort)->Arg(7)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_unwrap)->Args({5, 0})->Args({5, 1})->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_unwrap_kernels)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_blackscholes)->Iterations(9)->UseManualTime()->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  if (microsched::cuda_device_count() == 0) {
    std::printf("no CUDA GPU: bench_pipeline not run\n");
    return 0;
  }
  std::printf("device: %s\n", microsched::describe(microsched::current_device()).c_str());
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
