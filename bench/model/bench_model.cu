// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Google Benchmark: the divergence model against the GPU. For every workload (marching cubes,
// read alignment, photon transport) and every order (original, Sorting, Greedy, Greedy-Max on
// BBVs predicted from an instrumented sample by the eq. 1 regression, and the ideal: Sorting on
// the exact BBVs), a row times the regrouped launch (CUDA events, manual time, warm-up, median)
// and reports the predicted time ratio of both metrics against the measured one, their errors,
// the kernel speedup and the end-to-end speedup with the host's regrouping cost. Outputs of
// every order are checked bit for bit against the original launch's before it is timed.
//   MICROSCHED_MODEL_CACHE=DIR  folder of the per-GPU latency cache (default ./model-cache)
//   MICROSCHED_MODEL_NEIGHBOURS=K  sample items an item may borrow its residual from
//                               (residual_options::neighbours, default 128)
//   MICROSCHED_MODEL_DUMP=DIR   also write each workload's exact and predicted BBVs (raw uint32,
//                               item-major), the lane cycles of the latency fit's launches
//                               (empty when the latencies come from the cache) and its
//                               latencies and shape, for offline study
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "benchmark_main.hpp"
#include "checked_cli.hpp"
#include "microsched/device.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/io/atomic_file.hpp"
#include "microsched/measure/event_timer.hpp"
#include "microsched/model/latency.hpp"
#include "microsched/model/metrics.hpp"
#include "microsched/model/regression.hpp"
#include "microsched/model/regroup.hpp"
#include "model/model_workload.hpp"

using namespace microsched;
using namespace microsched::model;
using namespace microsched::model_kernels;

namespace {

constexpr std::size_t sample_items = 2048;  // items run instrumented to fit the regression
const timing_options kernel_timing{3, 15};
using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

//! A workload with its BBVs, latencies and original timing, made once.
struct prepared {
  std::unique_ptr<divergent_workload> w;
  bbv_matrix exact, predicted;
  bbv_matrix expected;  // predicted plus the sample's residuals: what the forecasts rate
  std::vector<double> latency;
  gpu_shape shape;
  double predict_ms = 0;  // regression fit + prediction on the host
  double bbv_error = 0;   // mean absolute count error of the prediction
  double expect_ms = 0;   // resample_residuals on the host
  double original_ms = 0, counted_ms = 0, timed_ms = 0;
  std::vector<std::uint32_t> original_outputs;
  bool latency_cached = false;
  // lane cycles of the fit's launches (original, sorted), when measured rather than cached
  std::vector<std::uint32_t> original_cycles, sorted_cycles;
};

bbv_matrix count_bbvs(divergent_workload& w, const std::uint32_t* order, std::uint32_t threads) {
  bbv_matrix m(w.items(), w.region_names().size());
  m.loop_of = w.region_loops();
  device_buffer<std::uint32_t> counts(m.counts.size());
  counts.fill_bytes(0);
  w.launch({probe_mode::count, order, threads, {counts.data(), nullptr}, nullptr, nullptr});
  m.counts = counts.to_host();
  return m;
}

//! Lane cycles of probe_mode::time launches of `order` (slot s runs item order[s]): after one
//! warm-up launch, each lane's median over three. A single launch's cycles vary from one process
//! to the next (the first launch of a kernel runs on cold caches), and the fit and the lone-block
//! speed inherit that.
std::vector<std::uint32_t> time_lanes(divergent_workload& w,
                                      const std::vector<std::uint32_t>& order,
                                      std::size_t regions) {
  device_buffer<std::uint32_t> d_order(order), counts(w.items() * regions), cycles(w.items());
  const auto launch = [&] {
    cycles.fill_bytes(0);
    w.launch({probe_mode::time,
              d_order.data(),
              static_cast<std::uint32_t>(order.size()),
              {counts.data(), cycles.data()},
              nullptr,
              nullptr});
    return cycles.to_host();
  };
  (void)launch();  // warm-up
  std::vector<std::vector<std::uint32_t>> runs;
  for (int i = 0; i < 3; ++i) runs.push_back(launch());
  std::vector<std::uint32_t> median(runs[0].size());
  for (std::size_t item = 0; item < median.size(); ++item) {
    std::uint32_t v[3] = {runs[0][item], runs[1][item], runs[2][item]};
    std::sort(v, v + 3);
    median[item] = v[1];
  }
  return median;
}

//! Region latencies fitted to timed launches of the original order and of the items sorted by
//! exact BBV, and, as the last value, how much faster a warp runs in a block alone on its SM
//! (blocks of the sorted launch run again, one per SM); cached per GPU.
std::vector<double> measure_latency(prepared& p) {
  const latency_cache cache(std::getenv("MICROSCHED_MODEL_CACHE") != nullptr
                                ? std::getenv("MICROSCHED_MODEL_CACHE")
                                : "model-cache");
  const std::string gpu = current_device().name, key = p.w->name() + "-warp-fit-v6";
  const std::size_t regions = p.exact.regions;
  if (auto cached = cache.load(gpu, key); cached && cached->size() == regions + 1) {
    p.latency_cached = true;
    return *cached;
  }
  const std::size_t n = p.w->items();
  const auto original = identity_order(n), sorted = sorting_order(p.exact);
  auto original_cycles = time_lanes(*p.w, original, regions);
  auto sorted_cycles = time_lanes(*p.w, sorted, regions);
  // example-begin fit-latencies
  const timed_launch launches[] = {{original, original_cycles}, {sorted, sorted_cycles}};
  auto lat = fit_latencies(p.exact, launches);
  // one block per SM: blocks of the sorted launch before its last wave, each alone on its SM
  const auto sms = static_cast<std::size_t>(current_sm_count());
  const auto part = lone_blocks(sorted, sms, divergent_workload::threads_per_block,
                                sms * static_cast<std::size_t>(p.w->blocks_per_sm(true)));
  const auto part_cycles = time_lanes(*p.w, part, regions);
  const double lone = lone_block_speedup({sorted, sorted_cycles}, {part, part_cycles});
  // example-end fit-latencies
  lat.push_back(lone);
  cache.store(gpu, key, lat);
  p.original_cycles = std::move(original_cycles);
  p.sorted_cycles = std::move(sorted_cycles);
  return lat;
}

void write_dump(const prepared& p, const std::string& folder) {
  std::filesystem::create_directories(folder);
  const std::string base = folder + "/" + p.w->name();
  // Each file written whole or not at all.
  for (const auto& [suffix, m] : {std::pair{".exact.u32", &p.exact.counts},
                                  {".predicted.u32", &p.predicted.counts},
                                  {".original-cycles.u32", &p.original_cycles},
                                  {".sorted-cycles.u32", &p.sorted_cycles}}) {
    microsched::write_file_atomically(base + suffix,
                                      std::string_view(reinterpret_cast<const char*>(m->data()),
                                                       m->size() * sizeof(std::uint32_t)));
  }
  std::ostringstream meta;
  meta << "items " << p.exact.items << "\nregions " << p.exact.regions << "\nlatency";
  for (const double l : p.latency) meta << ' ' << l;
  meta << "\nsm_count " << p.shape.sm_count << "\nblocks_per_sm " << p.shape.blocks_per_sm
       << "\nthreads_per_block " << p.shape.threads_per_block << "\nlone_block_speedup "
       << p.shape.lone_block_speedup << "\noriginal_ms " << p.original_ms << '\n';
  microsched::write_file_atomically(base + ".meta.txt", meta.str());
}

prepared& get(const std::string& name) {
  static std::map<std::string, std::unique_ptr<prepared>> cache;
  auto& slot = cache[name];
  if (slot) return *slot;
  slot = std::make_unique<prepared>();
  prepared& p = *slot;
  p.w = name == "marching_cubes" ? make_marching_cubes(128)
        : name == "alignment"    ? make_alignment(std::size_t{1} << 20)
                                 : make_photon(std::size_t{1} << 20);
  divergent_workload& w = *p.w;
  const std::size_t n = w.items();
  p.exact = count_bbvs(w, nullptr, static_cast<std::uint32_t>(n));
  // the instrumented sample: random items, counted in one launch of sample_items threads
  std::vector<std::uint32_t> sample = identity_order(n);
  std::shuffle(sample.begin(), sample.end(), std::mt19937(11));
  sample.resize(std::min(sample_items, n));
  device_buffer<std::uint32_t> d_sample(sample);
  const bbv_matrix counted =
      count_bbvs(w, d_sample.data(), static_cast<std::uint32_t>(sample.size()));
  bbv_matrix sample_counts(sample.size(), counted.regions);
  sample_counts.loop_of = counted.loop_of;
  for (std::size_t k = 0; k < sample.size(); ++k)
    std::ranges::copy(counted.row(sample[k]), sample_counts.row(k).begin());
  const auto features = w.features();
  auto start = clock_type::now();
  const auto fit = fit_bbv_regression(select_rows(features, sample), sample, sample_counts);
  p.predicted = predict_bbvs(fit, features);
  p.predict_ms = ms_since(start);
  p.bbv_error = mean_abs_error(p.predicted, p.exact);
  p.latency = measure_latency(p);
  const double lone_block_speedup = p.latency.back();
  p.latency.pop_back();
  p.shape = {current_sm_count(), w.blocks_per_sm(true), divergent_workload::threads_per_block,
             lone_block_speedup};
  start = clock_type::now();
  residual_options resample;
  if (const char* k = std::getenv("MICROSCHED_MODEL_NEIGHBOURS")) {
    const long value = std::strtol(k, nullptr, 10);
    if (value < 1) throw std::invalid_argument("MICROSCHED_MODEL_NEIGHBOURS must be >= 1");
    resample.neighbours = static_cast<std::size_t>(value);
  }
  // example-begin resample
  p.expected = resample_residuals(p.predicted, sample, sample_counts, p.latency, resample);
  // example-end resample
  p.expect_ms = ms_since(start);
  event_timer timer;
  const auto n32 = static_cast<std::uint32_t>(n);
  p.original_ms = timer
                      .time(
                          [&](cudaStream_t s) {
                            w.launch({probe_mode::off, nullptr, n32, {}, nullptr, s});
                          },
                          kernel_timing)
                      .median_ms;
  device_buffer<std::uint32_t> counts(p.exact.counts.size()), cycles(n);
  const auto probed_ms = [&](probe_mode mode) {
    return timer
        .time(
            [&](cudaStream_t s) {
              w.launch({mode, nullptr, n32, {counts.data(), cycles.data()}, nullptr, s});
            },
            kernel_timing)
        .median_ms;
  };
  p.counted_ms = probed_ms(probe_mode::count);
  p.timed_ms = probed_ms(probe_mode::time);
  w.poison_outputs(nullptr);
  w.launch({probe_mode::off, nullptr, n32, {}, nullptr, nullptr});
  p.original_outputs = w.outputs();
  if (const char* dump = std::getenv("MICROSCHED_MODEL_DUMP")) write_dump(p, dump);
  return p;
}

enum class row { original, sorting, greedy, greedy_max, ideal, shuffled };

//! The order a row launches, and the BBVs its prediction is made from. `shuffled` is a control:
//! a random order keeps the divergence of the original (whose items are generated independently)
//! and scatters every redirected read, so its measured ratio is what the model does not see.
std::vector<std::uint32_t> order_for(row kind, const prepared& p) {
  switch (kind) {
    case row::ideal:
      return regroup(regroup_method::sorting, p.exact, p.latency);
    case row::shuffled: {
      auto order = identity_order(p.exact.items);
      std::shuffle(order.begin(), order.end(), std::mt19937(23));
      return order;
    }
    case row::original:
      return regroup(regroup_method::original, p.predicted, p.latency);
    case row::sorting:
      return regroup(regroup_method::sorting, p.predicted, p.latency);
    case row::greedy:
      return regroup(regroup_method::greedy, p.predicted, p.latency);
    case row::greedy_max:
      return regroup(regroup_method::greedy_max, p.predicted, p.latency);
  }
  return {};
}

void bm_model(benchmark::State& state, const std::string& workload, row kind) {
  prepared& p = get(workload);
  divergent_workload& w = *p.w;
  const auto n32 = static_cast<std::uint32_t>(w.items());
  const bbv_matrix& bbv = kind == row::ideal ? p.exact : p.predicted;
  auto start = clock_type::now();
  const auto order = order_for(kind, p);
  const double regroup_ms = ms_since(start);
  start = clock_type::now();
  device_buffer<std::uint32_t> d_order(order);
  const double upload_ms = ms_since(start);
  w.poison_outputs(nullptr);
  w.launch({probe_mode::off, d_order.data(), n32, {}, nullptr, nullptr});
  if (w.outputs() != p.original_outputs) {
    state.SkipWithError("regrouped outputs differ from the original's");
    return;
  }
  for (int i = 0; i < kernel_timing.warmup; ++i)
    w.launch({probe_mode::off, d_order.data(), n32, {}, nullptr, nullptr});
  event_timer timer;
  std::vector<double> samples;
  for (auto _ : state) {
    const double ms = timer.time_once([&](cudaStream_t s) {
      w.launch({probe_mode::off, d_order.data(), n32, {}, nullptr, s});
    });
    state.SetIterationTime(ms * 1e-3);
    samples.push_back(ms);
  }
  const double kernel_ms = summarize(samples).median_ms;
  const double measured = kernel_ms / p.original_ms;  // time ratio: < 1 is faster
  // Predictions. An order built from predicted BBVs is rated on the expected ones (the
  // predictions plus the sample's residuals); the ideal order, built from the exact BBVs, on
  // those. pred_ws_plain rates on the BBVs the order was built from, as eq. 5's users do.
  const bbv_matrix& rated = kind == row::ideal ? p.exact : p.expected;
  const auto ratio = [&](const bbv_matrix& m, auto metric) {
    return metric(m, p.latency, order, p.shape) / metric(m, p.latency, {}, p.shape);
  };
  const double pred_w = ratio(rated, bbv_weighted);
  const double pred_ws = ratio(rated, bbv_weighted_scheduled);
  const double pred_ws_plain = ratio(bbv, bbv_weighted_scheduled);
  const double pred_ws_exact = ratio(p.exact, bbv_weighted_scheduled);
  const double host_ms =
      (kind == row::ideal || kind == row::shuffled ? 0.0 : p.predict_ms) + regroup_ms + upload_ms;
  auto& c = state.counters;
  c["orig_ms"] = p.original_ms;
  c["kernel_ms"] = kernel_ms;
  c["meas_ratio"] = measured;
  c["pred_w"] = pred_w;
  c["pred_ws"] = pred_ws;
  c["pred_ws_exact"] = pred_ws_exact;
  c["pred_ws_plain"] = pred_ws_plain;
  c["err_ws_plain_pct"] = 100.0 * std::abs(pred_ws_plain - measured) / measured;
  c["err_w_pct"] = 100.0 * std::abs(pred_w - measured) / measured;
  c["err_ws_pct"] = 100.0 * std::abs(pred_ws - measured) / measured;
  c["speedup"] = p.original_ms / kernel_ms;
  c["host_ms"] = host_ms;
  c["regroup_ms"] = regroup_ms;
  c["predict_ms"] = p.predict_ms;
  c["e2e_speedup"] = p.original_ms / (kernel_ms + host_ms);
  // launches of the same input that pay back the host's regrouping (-1: it never pays)
  c["breakeven"] = kernel_ms < p.original_ms ? host_ms / (p.original_ms - kernel_ms) : -1.0;
  c["bbv_mae"] = p.bbv_error;
  c["count_cost"] = p.counted_ms / p.original_ms;
  c["time_cost"] = p.timed_ms / p.original_ms;
  c["expect_ms"] = p.expect_ms;
  c["blocks_per_sm"] = p.shape.blocks_per_sm;
  c["lone_speedup"] = p.shape.lone_block_speedup;
  std::string label = "lat";
  for (const double l : p.latency) {
    label += ' ';
    label += std::to_string(static_cast<int>(std::lround(l)));
  }
  state.SetLabel(label + (p.latency_cached ? " (cached)" : " (measured)"));
}

void register_all() {
  const std::pair<row, const char*> rows[] = {
      {row::original, "original"},     {row::sorting, "sorting"}, {row::greedy, "greedy"},
      {row::greedy_max, "greedy_max"}, {row::ideal, "ideal"},     {row::shuffled, "shuffled"}};
  for (const char* workload : {"marching_cubes", "alignment", "photon"})
    for (const auto& [kind, name] : rows)
      benchmark::RegisterBenchmark(
          (std::string("bm_model/") + workload + "/" + name).c_str(),
          [workload, kind](benchmark::State& s) { bm_model(s, workload, kind); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(15);
}

}  // namespace

int main(int argc, char** argv) {
  // --help, --version, bad arguments and a bad MICROSCHED_MODEL_NEIGHBOURS are answered before
  // the GPU is looked for; without a GPU the program says why and exits with
  // programs::no_gpu_exit_code (77), like every other program.
  MICROSCHED_PARSE_BENCHMARK_ARGUMENTS("bench_model", argc, argv);
  return programs::run_main("bench_model", [] {
    if (const char* k = std::getenv("MICROSCHED_MODEL_NEIGHBOURS")) {
      (void)programs::parse_checked<long>("MICROSCHED_MODEL_NEIGHBOURS", k, 1, 1L << 30);
    }
    programs::require_gpu();
    std::printf("device: %s\n", describe(current_device()).c_str());
    benchmark::AddCustomContext("gpu", describe(current_device()));
    register_all();
    return programs::run_benchmarks("bench_model");
  });
}
