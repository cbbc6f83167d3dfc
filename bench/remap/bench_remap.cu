// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Google Benchmark: lin2018's micro-benchmark and two realistic kernels, original and remapped
// side by side in one run. Each row times its remapped variant (manual time, CUDA events) and,
// in the same run, the original and the divergence-free floor (median of warm-up + repetitions),
// and reports speedup, control-flow efficiency (in-kernel counters, a separate counting launch)
// and the share of the potential speedup 1/CFE reached.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "benchmark_main.hpp"
#include "microsched/device.hpp"
#include "microsched/measure/event_timer.hpp"
#include "microsched/remap/cfe_counter.hpp"
#include "microsched/scheduler.cuh"
#include "program_main.hpp"
#include "remap/device_array.hpp"
#include "remap/micro_branch.hpp"
#include "remap/realistic.hpp"

using namespace microsched;
using namespace microsched::remap_kernels;

namespace {

constexpr int micro_n = 1 << 22;
constexpr int micro_work = 1024;  // 8192 dependent FMAs per path and element
constexpr int realistic_n = 1 << 22;
const timing_options baseline_timing{2, 7};

using launch_fn = std::function<void(remap::cfe_totals*, cudaStream_t)>;

double count_cfe(const launch_fn& launch) {
  device_array<remap::cfe_totals> totals(1);
  totals.fill_bytes(0);
  launch(totals.data(), nullptr);
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  return remap::cfe_ratio(totals.to_host()[0]);
}

//! Times `remapped` as the benchmark's iterations and the original (and floor) alongside.
void run_side_by_side(benchmark::State& state, const launch_fn& original, const launch_fn& remapped,
                      const launch_fn* floor) {
  event_timer timer;
  const auto plain = [](const launch_fn& f) { return [&f](cudaStream_t s) { f(nullptr, s); }; };
  const timing_stats base = timer.time(plain(original), baseline_timing);
  const double cfe_original = count_cfe(original);
  const double cfe_remapped = count_cfe(remapped);
  for (int i = 0; i < 2; ++i) remapped(nullptr, nullptr);  // warm-up
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  std::vector<double> samples;
  for (auto _ : state) {
    const double ms = timer.time_once(plain(remapped));
    state.SetIterationTime(ms * 1e-3);
    samples.push_back(ms);
  }
  const timing_stats remap = summarize(samples);
  const double speedup = base.median_ms / remap.median_ms;
  const double potential = 1.0 / cfe_original;
  state.counters["orig_ms"] = base.median_ms;
  state.counters["remap_ms"] = remap.median_ms;
  state.counters["speedup"] = speedup;
  state.counters["cfe_orig"] = cfe_original;
  state.counters["cfe_remap"] = cfe_remapped;
  state.counters["potential"] = potential;
  // share of the potential performance improvement reached (lin2018 Fig. 7: (s - 1) / (p - 1))
  state.counters["of_potential"] = potential > 1.0 ? (speedup - 1.0) / (potential - 1.0) : 1.0;
  if (floor != nullptr) {
    const timing_stats f = timer.time(plain(*floor), baseline_timing);
    state.counters["floor_ms"] = f.median_ms;
    state.counters["remap_vs_floor"] = remap.median_ms / f.median_ms;
  }
}

//! Inputs of the micro-benchmark, made once per (paths, block, distribution).
struct micro_data {
  device_array<float> operand{static_cast<std::size_t>(micro_n)};
  device_array<float> out{static_cast<std::size_t>(micro_n)};
  std::map<std::tuple<int, int, path_distribution>, std::unique_ptr<device_array<std::uint8_t>>>
      paths;

  micro_data() {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> host(static_cast<std::size_t>(micro_n));
    for (auto& v : host) v = u(rng);
    operand.upload(host);
  }
  const std::uint8_t* path(int p, int block, path_distribution d) {
    auto& slot = paths[{p, block, d}];
    if (!slot)
      slot =
          std::make_unique<device_array<std::uint8_t>>(make_paths(micro_n, p, block, d, 77u + p));
    return slot->data();
  }
};

micro_data& micro() {
  static micro_data data;
  return data;
}

void bm_micro(benchmark::State& state, micro_config config, path_distribution dist) {
  auto& d = micro();
  const std::uint8_t* path = d.path(config.paths, config.block_threads, dist);
  const std::uint8_t* flat = d.path(config.paths, config.block_threads, path_distribution::uniform);
  micro_config base = config;
  base.variant = remap_variant::original;
  const launch_fn original = [&](remap::cfe_totals* c, cudaStream_t s) {
    launch_micro_branch(base, d.operand.data(), path, d.out.data(), micro_n, c, s);
  };
  const launch_fn remapped = [&](remap::cfe_totals* c, cudaStream_t s) {
    launch_micro_branch(config, d.operand.data(), path, d.out.data(), micro_n, c, s);
  };
  const launch_fn floor = [&](remap::cfe_totals* c, cudaStream_t s) {
    launch_micro_branch(base, d.operand.data(), flat, d.out.data(), micro_n, c, s);
  };
  run_side_by_side(state, original, remapped, &floor);
}

void bm_chi_square(benchmark::State& state, remap_variant variant, int block) {
  static const auto inputs = [] {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> ua(0.5f, 30.0f), ur(0.2f, 2.0f);
    std::vector<float> a(realistic_n), x(realistic_n);
    for (int i = 0; i < realistic_n; ++i) a[i] = ua(rng), x[i] = a[i] * ur(rng);
    return std::make_pair(a, x);
  }();
  static device_array<float> d_a(inputs.first), d_x(inputs.second), d_q(realistic_n);
  const launch_fn original = [&](remap::cfe_totals* c, cudaStream_t s) {
    launch_chi_square_pvalues(remap_variant::original, block, d_a.data(), d_x.data(), d_q.data(),
                              realistic_n, c, s);
  };
  const launch_fn remapped = [&](remap::cfe_totals* c, cudaStream_t s) {
    launch_chi_square_pvalues(variant, block, d_a.data(), d_x.data(), d_q.data(), realistic_n, c,
                              s);
  };
  run_side_by_side(state, original, remapped, nullptr);
}

void bm_model_tree(benchmark::State& state, remap_variant variant, int block) {
  static const std::vector<float> records = [] {
    std::mt19937 rng(6);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> r(std::size_t{realistic_n} * model_tree_features);
    for (auto& f : r) f = u(rng);
    return r;
  }();
  static device_array<float> d_records(records), d_out(realistic_n);
  upload_model_tree_weights(42);
  const launch_fn original = [&](remap::cfe_totals* c, cudaStream_t s) {
    launch_model_tree(remap_variant::original, block, d_records.data(), d_out.data(), realistic_n,
                      c, s);
  };
  const launch_fn remapped = [&](remap::cfe_totals* c, cudaStream_t s) {
    launch_model_tree(variant, block, d_records.data(), d_out.data(), realistic_n, c, s);
  };
  run_side_by_side(state, original, remapped, nullptr);
}

//! The micro-benchmark's branch as a routed task program (task_program.hpp): each step is one of
//! four 8-FMA sequences, chosen by the element's path, `micro_work` steps per task. The
//! scheduler's direct mapping runs it as the original kernel does; the remapped strategy
//! regroups each block's tasks by path between fetches (driver/remapped_loop.cuh).
struct routed_micro {
  static constexpr unsigned paths = 4;
  struct context {
    float x = 0;
    std::uint32_t left = 0;
    unsigned path = 0;
  };
  const float* operand = nullptr;
  const std::uint8_t* path_of = nullptr;
  float* out = nullptr;
  std::uint32_t work = micro_work;

  __device__ unsigned path(task_id t) const { return path_of[t]; }
  __device__ context begin(task_id t) const { return {operand[t], work, path_of[t]}; }
  __device__ bool step(context& c) const {
    float a = c.x;
    switch (c.path) {  // constants differ per path, so the paths stay apart in the code
      case 0:
#pragma unroll
        for (int k = 0; k < 8; ++k) a = fmaf(a, 0.999f, 0.001f);
        break;
      case 1:
#pragma unroll
        for (int k = 0; k < 8; ++k) a = fmaf(a, 0.998f, 0.002f);
        break;
      case 2:
#pragma unroll
        for (int k = 0; k < 8; ++k) a = fmaf(a, 0.997f, 0.003f);
        break;
      default:
#pragma unroll
        for (int k = 0; k < 8; ++k) a = fmaf(a, 0.996f, 0.004f);
        break;
    }
    c.x = a;
    return --c.left == 0;
  }
  __device__ void end(task_id t, const context& c) const {
    out[t] = c.x;
  }
};

//! The scheduler's remapped strategy against its direct mapping of the same program, and the
//! direct mapping on input where every element takes path 0 (the floor). Outputs are checked
//! bit for bit against the direct mapping before anything is timed.
void bm_driver(benchmark::State& state, path_distribution dist) {
  auto& d = micro();
  routed_micro program{d.operand.data(), d.path(4, 256, dist), d.out.data()};
  routed_micro flat = program;
  flat.path_of = d.path(4, 256, path_distribution::uniform);
  schedule_arguments direct_args;
  direct_args.strategy = pool_strategy::direct;
  schedule_arguments remapped_args;
  remapped_args.strategy = pool_strategy::remapped;
  scheduler<routed_micro> direct(direct_args);
  scheduler<routed_micro> remapped(remapped_args);
  scheduler<routed_micro> automatic;  // the default schedule, calibrated before it is timed
  direct.run(program, micro_n);
  const std::vector<float> want = d.out.to_host();
  d.out.fill_bytes(0xff);
  remapped.run(program, micro_n);
  if (d.out.to_host() != want) {
    state.SkipWithError("remapped outputs differ from the direct mapping");
    return;
  }
  d.out.fill_bytes(0xff);
  automatic.calibrate(program, micro_n);
  if (d.out.to_host() != want) {
    state.SkipWithError("the default schedule's outputs differ from the direct mapping");
    return;
  }
  event_timer timer;
  const timing_stats base =
      timer.time([&](cudaStream_t s) { direct.run(program, micro_n, s); }, baseline_timing);
  const timing_stats regrouped =
      timer.time([&](cudaStream_t s) { remapped.run(program, micro_n, s); }, baseline_timing);
  const timing_stats floor =
      timer.time([&](cudaStream_t s) { direct.run(flat, micro_n, s); }, baseline_timing);
  const timing_stats chosen =
      timer.time([&](cudaStream_t s) { automatic.run(program, micro_n, s); }, baseline_timing);
  for (auto _ : state) state.SetIterationTime(regrouped.median_ms * 1e-3);
  state.counters["orig_ms"] = base.median_ms;
  state.counters["remap_ms"] = regrouped.median_ms;
  state.counters["floor_ms"] = floor.median_ms;
  state.counters["speedup"] = base.median_ms / regrouped.median_ms;
  state.counters["remap_vs_floor"] = regrouped.median_ms / floor.median_ms;
  state.counters["default_ms"] = chosen.median_ms;
  state.counters["default_x_remap"] = regrouped.median_ms / chosen.median_ms;
  state.counters["default_x_direct"] = base.median_ms / chosen.median_ms;
  state.SetLabel("default: " + automatic.report(micro_n));
}

void register_all() {
  const auto add = [](const std::string& name, auto fn, auto... args) {
    benchmark::RegisterBenchmark(name.c_str(), fn, args...)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(9);
  };
  for (const auto dist : {path_distribution::balanced, path_distribution::iid}) {
    const std::string d = distribution_name(dist);
    for (const int block : {256, 1024}) {
      for (const auto v : {remap_variant::head_or_tail, remap_variant::head_or_tail16,
                           remap_variant::data_group_index}) {
        add("micro/paths:2/" + d + "/block:" + std::to_string(block) + "/" + variant_name(v),
            bm_micro, micro_config{2, block, 16, micro_work, v}, dist);
      }
    }
    for (const int hood : {4, 16, 64}) {
      add("micro/paths:4/" + d + "/block:256/dgi/N:" + std::to_string(hood), bm_micro,
          micro_config{4, 256, hood, micro_work, remap_variant::data_group_index}, dist);
    }
    add("micro/paths:4/" + d + "/block:1024/dgi/N:16", bm_micro,
        micro_config{4, 1024, 16, micro_work, remap_variant::data_group_index}, dist);
    add("micro/paths:8/" + d + "/block:256/dgi/N:16", bm_micro,
        micro_config{8, 256, 16, micro_work, remap_variant::data_group_index}, dist);
  }
  for (const auto dist :
       {path_distribution::balanced, path_distribution::iid, path_distribution::uniform}) {
    benchmark::RegisterBenchmark(
        ("driver/paths:4/" + std::string(distribution_name(dist)) + "/remapped").c_str(), bm_driver,
        dist)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
  }
  for (const int block : {256, 1024}) {
    const std::string b = "/block:" + std::to_string(block);
    for (const auto v : {remap_variant::head_or_tail, remap_variant::head_or_tail16,
                         remap_variant::data_group_index}) {
      add(std::string("chi_square") + b + "/" + variant_name(v), bm_chi_square, v, block);
    }
    add("model_tree" + b + "/dgi", bm_model_tree, remap_variant::data_group_index, block);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // --help and unknown arguments are answered before the GPU is looked for; without a GPU the
  // program says so and exits with programs::no_gpu_exit_code (77).
  MICROSCHED_PARSE_BENCHMARK_ARGUMENTS("bench_remap", argc, argv);
  return programs::run_main("bench_remap", [] {
    programs::require_gpu();
    const auto info = current_device();
    benchmark::AddCustomContext("gpu", describe(info));
    benchmark::AddCustomContext("micro", "n=" + std::to_string(micro_n) + " work=" +
                                             std::to_string(micro_work) + " (x8 FMA per path)");
    register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  });
}
