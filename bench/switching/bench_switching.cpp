// bench_switching: context switching for branch divergence (frey2012 §5.1 and §5.3), measured on
// the device it runs on, CUDA events into SetIterationTime (manual time, median over the
// repetitions).
//   mc_branch/<variant>/p=<p>      Monte Carlo branch test, time against p; counter ideal_ms is
//                                  the vanilla time at p=1 scaled by the work done at p
//   mc_branch_tune/...             pool size and blocks per SM at p=0.01
//   raycast/<variant>/step=<h>     ray caster, time against the step size; immediate and deferred
//                                  switching side by side; counter speedup against vanilla
//   raycast_large/<variant>/step=<h> the same at 2048x2048 (vanilla runs first in each step)
// Environment: MICROSCHED_BENCH_TASKS (Monte Carlo tasks, default 524288).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <string>

#include "microsched/device.hpp"
#include "switching_runners.hpp"

using namespace microsched;
using namespace microsched::switching_workloads;

namespace {

constexpr int repetitions = 3;

variant make_variant(int blocks_per_sm, int contexts, int every, int threshold) {
  variant v;
  v.schedule.strategy = pool_strategy::hybrid;
  v.schedule.chunk = 32;
  v.schedule.blocks_per_sm = blocks_per_sm;
  v.contexts_per_warp = contexts;
  v.switching.switch_every = every;
  v.switching.vanilla_threshold = threshold;
  return v;
}

montecarlo_branch_runner& mc() {
  static std::unique_ptr<montecarlo_branch_runner> runner = [] {
    montecarlo_branch_settings s;
    if (const char* t = std::getenv("MICROSCHED_BENCH_TASKS")) s.tasks = std::strtoull(t, nullptr, 10);
    else s.tasks = 1u << 19;
    return std::make_unique<montecarlo_branch_runner>(s);
  }();
  return *runner;
}

raycast_runner& rc() {
  static raycast_runner runner(raycast_settings{});
  return runner;
}

//! 2048x2048: on a 132-SM H100 as many warps of work per SM as 512x512 gave the paper's 16-SM
//! GTX 580 (about ten waves of the vanilla kernel).
raycast_runner& rc_large() {
  static raycast_runner runner(raycast_settings{2048, 2048, 0.05f});
  return runner;
}

std::map<std::string, double>& vanilla_cache() {
  static std::map<std::string, double> cache;
  return cache;
}

double mc_vanilla_ms(float p) {
  const std::string key = "mc" + std::to_string(p);
  auto& cache = vanilla_cache();
  if (!cache.count(key)) {
    mc().set_probability(p);
    cache[key] = mc().time_vanilla({1, repetitions}).median_ms;
  }
  return cache[key];
}

double rc_vanilla_ms(float h) {
  const std::string key = "rc" + std::to_string(h);
  auto& cache = vanilla_cache();
  if (!cache.count(key)) {
    rc().set_step_size(h);
    cache[key] = rc().time_vanilla({1, repetitions}).median_ms;
  }
  return cache[key];
}

template <class Time>
void run_manual(benchmark::State& state, Time&& time) {
  for (auto _ : state) {
    timing_stats t;
    try {
      t = time();
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      return;
    }
    state.SetIterationTime(t.median_ms / 1e3);
    state.counters["ms"] = t.median_ms;
  }
}

void register_mc() {
  const float ps[] = {0.001f, 0.003f, 0.01f, 0.03f, 0.1f, 0.3f, 0.5f, 0.9f, 1.0f};
  struct named {
    const char* name;
    bool vanilla;
    variant v;
  };
  const named variants[] = {{"vanilla", true, {}},
                            {"microsched", false, make_variant(4, 128, 1, 33)},
                            {"microsched_threshold24", false, make_variant(4, 128, 1, 24)},
                            {"microsched_auto_occupancy", false, make_variant(0, 64, 1, 33)}};
  for (const auto& n : variants) {
    for (const float p : ps) {
      const std::string name = std::string("mc_branch/") + n.name + "/p=" + std::to_string(p).substr(0, 5);
      benchmark::RegisterBenchmark(name.c_str(), [n, p](benchmark::State& state) {
        const double vanilla_ms = mc_vanilla_ms(p);
        const double full_ms = mc_vanilla_ms(1.0f);
        mc().set_probability(p);
        const auto& s = mc().settings();
        // Work per outer iteration: one draw, plus `inner` draws with probability p.
        const double ideal_ms = full_ms * (1.0 + p * s.inner) / (1.0 + s.inner);
        run_manual(state, [&] {
          return n.vanilla ? mc().time_vanilla({0, repetitions})
                           : mc().time_switching(n.v, {0, repetitions});
        });
        state.counters["p"] = p;
        state.counters["vanilla_ms"] = vanilla_ms;
        state.counters["ideal_ms"] = ideal_ms;
        state.counters["speedup"] = vanilla_ms / state.counters["ms"];
      })->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    }
  }
  for (const int blocks : {2, 4, 8, 0}) {
    for (const int contexts : {64, 128}) {
      const std::string name = "mc_branch_tune/blocks_per_sm=" + std::to_string(blocks) +
                               "/contexts=" + std::to_string(contexts) + "/p=0.01";
      benchmark::RegisterBenchmark(name.c_str(), [blocks, contexts](benchmark::State& state) {
        const double vanilla_ms = mc_vanilla_ms(0.01f);
        mc().set_probability(0.01f);
        run_manual(state, [&] { return mc().time_switching(make_variant(blocks, contexts, 1, 33), {1, repetitions}); });
        state.counters["speedup"] = vanilla_ms / state.counters["ms"];
      })->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    }
  }
}

void register_raycast() {
  const float steps[] = {0.4f, 0.2f, 0.1f, 0.05f, 0.025f, 0.0125f};
  struct named {
    const char* name;
    bool vanilla;
    variant v;
  };
  const named variants[] = {{"vanilla", true, {}},
                            {"immediate", false, make_variant(0, 64, 1, 33)},
                            {"deferred8", false, make_variant(0, 64, 8, 33)},
                            {"deferred32", false, make_variant(0, 64, 32, 33)}};
  for (const auto& n : variants) {
    for (const float h : steps) {
      const std::string name = std::string("raycast/") + n.name + "/step=" + std::to_string(h).substr(0, 6);
      benchmark::RegisterBenchmark(name.c_str(), [n, h](benchmark::State& state) {
        const double vanilla_ms = rc_vanilla_ms(h);
        rc().set_step_size(h);
        run_manual(state, [&] {
          return n.vanilla ? rc().time_vanilla({0, repetitions})
                           : rc().time_switching(n.v, {1, repetitions});
        });
        state.counters["step"] = h;
        state.counters["vanilla_ms"] = vanilla_ms;
        state.counters["speedup"] = vanilla_ms / state.counters["ms"];
      })->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    }
  }
  for (const int blocks : {2, 4, 0}) {
    for (const int every : {1, 8, 32}) {
      const std::string name = "raycast_tune/blocks_per_sm=" + std::to_string(blocks) +
                               "/every=" + std::to_string(every) + "/step=0.0125";
      benchmark::RegisterBenchmark(name.c_str(), [blocks, every](benchmark::State& state) {
        const double vanilla_ms = rc_vanilla_ms(0.0125f);
        rc().set_step_size(0.0125f);
        run_manual(state, [&] { return rc().time_switching(make_variant(blocks, 64, every, 33), {1, repetitions}); });
        state.counters["speedup"] = vanilla_ms / state.counters["ms"];
      })->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    }
  }
}

void register_raycast_large() {
  struct named {
    const char* name;
    bool vanilla;
    variant v;
  };
  const named variants[] = {{"vanilla", true, {}},
                            {"immediate", false, make_variant(4, 128, 1, 33)},
                            {"deferred8", false, make_variant(4, 128, 8, 33)},
                            {"deferred32", false, make_variant(4, 128, 32, 33)},
                            {"deferred32_auto", false, make_variant(0, 64, 32, 33)}};
  for (const float h : {0.05f, 0.0125f}) {
    auto vanilla_ms = std::make_shared<double>(0.0);
    for (const auto& n : variants) {
      const std::string name = std::string("raycast_large/") + n.name + "/step=" + std::to_string(h).substr(0, 6);
      benchmark::RegisterBenchmark(name.c_str(), [n, h, vanilla_ms](benchmark::State& state) {
        rc_large().set_step_size(h);
        run_manual(state, [&] {
          return n.vanilla ? rc_large().time_vanilla({1, repetitions})
                           : rc_large().time_switching(n.v, {1, repetitions});
        });
        if (n.vanilla) *vanilla_ms = state.counters["ms"];
        state.counters["step"] = h;
        state.counters["vanilla_ms"] = *vanilla_ms;
        state.counters["speedup"] = *vanilla_ms / state.counters["ms"];
      })->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (cuda_device_count() == 0) {
    std::printf("bench_switching: no CUDA GPU; nothing measured\n");
    return 0;
  }
  const auto info = current_device();
  std::printf("device: %s\n", describe(info).c_str());
  benchmark::AddCustomContext("device", describe(info));
  register_mc();
  register_raycast();
  register_raycast_large();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
