// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// bench_switching: context switching for branch divergence (frey2012 §5.1 and §5.3), measured on
// the device it runs on, CUDA events into SetIterationTime (manual time, median over the
// repetitions).
//   mc_branch/<variant>/p=<p>      Monte Carlo branch test, time against p; counter ideal_ms is
//                                  the vanilla time at p=1 scaled by the work done at p;
//                                  vanilla: the textbook loop; microsched: the library's default,
//                                  the automatic schedule (the direct mapping or switching on
//                                  hybrid pools, timed; the label names the choice), a march
//                                  window of 16 outer iterations per step; microsched_hybrid:
//                                  switching on hybrid pools, 4 blocks/SM (_w<w>: another
//                                  window); wavefront: CUB queues between kernels; rows with
//                                  another suffix run at p = 0.01, 0.9 and 1 only
//   mc_branch_tune/...             pool size and blocks per SM at p=0.01
//   raycast/<variant>/step=<h>     ray caster, time against the step size; immediate and deferred
//                                  switching side by side; counter speedup against vanilla
//   raycast_large/<variant>/step=<h> the same at 2048x2048 (vanilla runs first in each step)
//                                  (these three groups: the earlier workload, second derivative
//                                  by axis differences, one sample per step)
//   raycast_hessian[_skip]/<size>/<variant>_w<window>/step=<h>  the faithful shading (Sobel
//                                  Hessian, 125 samples), a march window of w samples per step,
//                                  [_skip: empty-space skipping]; counters speedup (against the
//                                  fastest vanilla window) and speedup_w1 (against window 1)
//   raycast_hessian[_skip]_tune/<size>/window/every/blocks_per_sm/contexts  tuning, step 0.0125
//   raycast_tiles[_skip]/<size>/tile=<t>/vanilla_w<w>          vanilla per task order and window
//   raycast_tiles[_skip]_tune/<size>/tile/cap/blocks_per_sm/contexts/window/every  switching:
//                                  task order (rows, 8x4 or 16x16 tiles), register cap (min
//                                  blocks/SM of the launch bounds, 0 = none), grid, pool, window,
//                                  deferral; step 0.0125; counters speedup_w1_rows (against the
//                                  textbook vanilla: window 1, row-major), speedup_w1 (window 1,
//                                  same order), speedup (against the fastest vanilla of every
//                                  order and window)
//   raycast_q/<size>/<skip|noskip>/vanilla_<order>_w<w>       vanilla per task order and window
//   (center_first: the switching rows' expensive-tiles-first order)
//   raycast_q/<size>/<skip|noskip>/switching/blocks_per_sm/contexts/chunk/window/quorum
//                                  switching with march quorum q (a window ends once q lanes
//                                  have stopped; 0 = off); step 0.0125, median of 5; counters
//                                  speedup_w1_rows (textbook vanilla: window 1, row-major) and
//                                  speedup (the fastest vanilla row of the group); skip = with
//                                  empty-space skipping (the raycast sample's default), noskip =
//                                  every sample marched; fifo/lifo: parked contexts resumed first
//                                  or last in first out; center_first/rows: the switching run's
//                                  task order (expensive 8x4 tiles first, or vanilla's rows)
//   rc_base/<size>/<skip|noskip>/<row>  the ray caster against the baselines a demanding user
//                                  writes, step 0.0125: vanilla_textbook (window 1, rows),
//                                  vanilla_best (the fastest of windows 16..256 x task orders
//                                  rows, 8x4, 16x16, expensive tiles first; the label names it),
//                                  wavefront_<order>_w<w> (wavefront.cuh; checked against vanilla
//                                  first), switching/... rows, ideal (the work counted, priced
//                                  at the rates of kernels without divergence: raycast_ideal.cuh;
//                                  the label gives the work per ray); counters x_vanilla_best,
//                                  x_wavefront, x_best_baseline (the better of the two), of_ideal
//   mc_branch/wavefront/p=<p>      the Monte Carlo wavefront baseline (checked at p = 0.001,
//                                  0.01, 0.1, 1); counter of_ideal = ideal_ms / ms
// Environment: MICROSCHED_BENCH_TASKS (Monte Carlo tasks, default 524288).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "benchmark_main.hpp"
#include "checked_cli.hpp"
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
  v.schedule.switching.switch_every = every;
  v.schedule.switching.vanilla_threshold = threshold;
  return v;
}

//! Tasks of the Monte Carlo rows: MICROSCHED_BENCH_TASKS (checked: a whole number in 1..2^30),
//! else 2^19. Throws std::invalid_argument naming the variable and its value.
std::uint64_t bench_tasks() {
  const char* t = std::getenv("MICROSCHED_BENCH_TASKS");
  if (t == nullptr) return std::uint64_t{1} << 19;
  return programs::parse_checked("MICROSCHED_BENCH_TASKS", t, std::uint64_t{1},
                                 std::uint64_t{1} << 30);
}

montecarlo_branch_runner& mc() {
  static std::unique_ptr<montecarlo_branch_runner> runner = [] {
    montecarlo_branch_settings s;
    s.tasks = bench_tasks();
    return std::make_unique<montecarlo_branch_runner>(s);
  }();
  return *runner;
}

//! The ray caster at size x size (512: the paper's image; 2048: on a 132-SM H100 as many warps
//! of work per SM as 512x512 gave the paper's 16-SM GTX 580, about ten vanilla waves).
raycast_runner& rc_at(int size) {
  static std::map<int, std::unique_ptr<raycast_runner>> runners;
  auto& r = runners[size];
  if (!r) r = std::make_unique<raycast_runner>(raycast_settings{size, size, 0.05f});
  return *r;
}
raycast_runner& rc_set(int size, bool hessian, float h, int window) {
  auto& r = rc_at(size);
  r.set_skip_empty(false);
  r.set_tile(0, 0);
  r.set_march_quorum(0);
  r.set_center_first(false);
  r.set_hessian(hessian);
  r.set_step_size(h);
  r.set_march_window(window);
  return r;
}
//! The earlier groups' runners (they call rc_set first: axis differences, window 1).
raycast_runner& rc() {
  return rc_at(512);
}
raycast_runner& rc_large() {
  return rc_at(2048);
}

std::map<std::string, double>& vanilla_cache() {
  static std::map<std::string, double> cache;
  return cache;
}

//! Vanilla at p with a march window of `window` outer iterations per step (1: the textbook
//! loop), cached; the runner is left at window 1.
double mc_vanilla_ms(float p, std::uint32_t window = 1) {
  const std::string key = "mc" + std::to_string(p) + "w" + std::to_string(window);
  auto& cache = vanilla_cache();
  if (!cache.count(key)) {
    mc().set_probability(p);
    mc().set_march_window(window);
    const double ms = mc().time_vanilla({1, repetitions}).median_ms;
    mc().set_march_window(1);
    cache[key] = ms;
  }
  return cache[key];
}

double rc_vanilla_ms(float h) {
  const std::string key = "rc" + std::to_string(h);
  auto& cache = vanilla_cache();
  if (!cache.count(key))
    cache[key] = rc_set(512, false, h, 1).time_vanilla({1, repetitions}).median_ms;
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

//! Checks the Monte Carlo wavefront baseline at p (exactly once, bit-equal to vanilla) once per
//! p; throws with the report's detail when it fails.
void mc_check_wavefront(float p) {
  static std::map<float, bool> checked;
  if (checked.count(p)) return;
  mc().set_probability(p);
  const auto r = mc().check_wavefront();
  if (!r.passed) {
    throw std::runtime_error("wavefront differs from vanilla at p=" + std::to_string(p) + ": " +
                             r.detail);
  }
  checked[p] = true;
}

void register_mc() {
  const float ps[] = {0.001f, 0.003f, 0.01f, 0.03f, 0.1f, 0.3f, 0.5f, 0.9f, 1.0f};
  enum class kind { vanilla, switching, wavefront };
  struct named {
    const char* name;
    kind k;
    std::uint32_t window;  //!< outer iterations per step
    variant v;
    bool sweep = true;  //!< every p; else only p = 0.01, 0.9 and 1 (the issue's targets)
  };
  const auto sw = [](int blocks, int contexts, int every, int threshold) {
    return make_variant(blocks, contexts, every, threshold);
  };
  // The library's default: the automatic schedule (the direct mapping or hybrid pools on an
  // automatic grid, whichever is faster on this workload), a march window of 16.
  const auto automatic = [](int threshold) {
    variant v = make_variant(0, 128, 1, threshold);
    v.schedule.strategy = pool_strategy::automatic;
    return v;
  };
  const named variants[] = {
      {"vanilla", kind::vanilla, 1, {}},
      {"wavefront", kind::wavefront, 1, {}},
      {"microsched", kind::switching, 16, automatic(33)},
      {"microsched_hybrid", kind::switching, 16, sw(4, 128, 1, 33)},
      {"microsched_w1", kind::switching, 1, sw(4, 128, 1, 33)},
      {"vanilla_w16", kind::vanilla, 16, {}, false},
      {"vanilla_w64", kind::vanilla, 64, {}, false},
      {"wavefront_w16", kind::wavefront, 16, {}, false},
      {"microsched_w4", kind::switching, 4, sw(4, 128, 1, 33), false},
      {"microsched_w64", kind::switching, 64, sw(4, 128, 1, 33), false},
      {"microsched_w16_deferred2", kind::switching, 16, sw(4, 128, 2, 33), false},
      {"microsched_w16_threshold24", kind::switching, 16, sw(4, 128, 1, 24), false},
      {"microsched_w16_blocks8", kind::switching, 16, sw(8, 64, 1, 33), false},
      {"microsched_threshold24", kind::switching, 16, automatic(24), false},
      {"microsched_w1_threshold24", kind::switching, 1, sw(4, 128, 1, 24), false},
      {"microsched_w1_deferred4", kind::switching, 1, sw(4, 128, 4, 33), false}};
  for (const auto& n : variants) {
    for (const float p : ps) {
      if (!n.sweep && p != 0.01f && p != 0.9f && p != 1.0f) continue;
      const std::string name =
          std::string("mc_branch/") + n.name + "/p=" + std::to_string(p).substr(0, 5);
      benchmark::RegisterBenchmark(
          name.c_str(),
          [n, p](benchmark::State& state) {
            const double vanilla_ms = mc_vanilla_ms(p);
            const double full_ms = mc_vanilla_ms(1.0f);
            if (n.k == kind::wavefront && (p == 0.001f || p == 0.01f || p == 0.1f || p == 1.0f)) {
              try {
                mc_check_wavefront(p);
              } catch (const std::exception& e) {
                state.SkipWithError(e.what());
                return;
              }
            }
            mc().set_probability(p);
            const auto& s = mc().settings();
            // Work per outer iteration: one draw, plus `inner` draws with probability p.
            const double ideal_ms = full_ms * (1.0 + p * s.inner) / (1.0 + s.inner);
            run_manual(state, [&] {
              switch (n.k) {
                case kind::vanilla: {
                  timing_stats t;
                  t.median_ms = mc_vanilla_ms(p, n.window);
                  return t;
                }
                case kind::wavefront:
                  mc().set_march_window(n.window);
                  return mc().time_wavefront({1, repetitions});
                case kind::switching:
                  break;
              }
              mc().set_march_window(n.window);
              return mc().time_switching(n.v, {0, repetitions});
            });
            mc().set_march_window(1);
            if (n.k == kind::switching) state.SetLabel(last_switching_schedule());
            state.counters["p"] = p;
            state.counters["window"] = n.window;
            state.counters["vanilla_ms"] = vanilla_ms;
            state.counters["ideal_ms"] = ideal_ms;
            state.counters["speedup"] = vanilla_ms / state.counters["ms"];
            state.counters["of_ideal"] = ideal_ms / state.counters["ms"];
            if (n.k == kind::wavefront) state.counters["rounds"] = mc().wavefront_rounds();
          })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
  for (const int blocks : {2, 4, 8, 0}) {
    for (const int contexts : {64, 128}) {
      const std::string name = "mc_branch_tune/blocks_per_sm=" + std::to_string(blocks) +
                               "/contexts=" + std::to_string(contexts) + "/p=0.01";
      benchmark::RegisterBenchmark(
          name.c_str(),
          [blocks, contexts](benchmark::State& state) {
            const double vanilla_ms = mc_vanilla_ms(0.01f);
            mc().set_probability(0.01f);
            run_manual(state, [&] {
              return mc().time_switching(make_variant(blocks, contexts, 1, 33), {1, repetitions});
            });
            state.counters["speedup"] = vanilla_ms / state.counters["ms"];
          })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
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
      const std::string name =
          std::string("raycast/") + n.name + "/step=" + std::to_string(h).substr(0, 6);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [n, h](benchmark::State& state) {
                                     const double vanilla_ms = rc_vanilla_ms(h);
                                     rc_set(512, false, h, 1);
                                     run_manual(state, [&] {
                                       return n.vanilla
                                                  ? rc().time_vanilla({0, repetitions})
                                                  : rc().time_switching(n.v, {1, repetitions});
                                     });
                                     state.counters["step"] = h;
                                     state.counters["vanilla_ms"] = vanilla_ms;
                                     state.counters["speedup"] = vanilla_ms / state.counters["ms"];
                                   })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
  for (const int blocks : {2, 4, 0}) {
    for (const int every : {1, 8, 32}) {
      const std::string name = "raycast_tune/blocks_per_sm=" + std::to_string(blocks) +
                               "/every=" + std::to_string(every) + "/step=0.0125";
      benchmark::RegisterBenchmark(
          name.c_str(),
          [blocks, every](benchmark::State& state) {
            const double vanilla_ms = rc_vanilla_ms(0.0125f);
            rc_set(512, false, 0.0125f, 1);
            run_manual(state, [&] {
              return rc().time_switching(make_variant(blocks, 64, every, 33), {1, repetitions});
            });
            state.counters["speedup"] = vanilla_ms / state.counters["ms"];
          })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
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
      const std::string name =
          std::string("raycast_large/") + n.name + "/step=" + std::to_string(h).substr(0, 6);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [n, h, vanilla_ms](benchmark::State& state) {
                                     rc_set(2048, false, h, 1);
                                     run_manual(state, [&] {
                                       return n.vanilla ? rc_large().time_vanilla({1, repetitions})
                                                        : rc_large().time_switching(
                                                              n.v, {1, repetitions});
                                     });
                                     if (n.vanilla) *vanilla_ms = state.counters["ms"];
                                     state.counters["step"] = h;
                                     state.counters["vanilla_ms"] = *vanilla_ms;
                                     state.counters["speedup"] = *vanilla_ms / state.counters["ms"];
                                   })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

//! The faithful shading (Sobel Hessian, 125 samples) with a march window, without and with
//! empty-space skipping: vanilla at windows 1..64, context switching immediate and deferred, per
//! step size, at 512x512 and 2048x2048. Counters: speedup against the fastest vanilla window,
//! speedup_w1 against vanilla at window 1 (the textbook kernel: one sample per loop iteration).
struct rc_variant {
  const char* name;
  int window;
  int every;  //!< 0: vanilla; -1: termination-only persistent driver
  int blocks;
  int contexts;
};

constexpr int vanilla_windows[] = {1, 4, 8, 16, 32, 64, 256, 4096};

double rc_vanilla_ms(int size, bool skip, float h, int window) {
  const std::string key = "rcH" + std::to_string(size) + (skip ? "s" : "n") + std::to_string(h) +
                          "w" + std::to_string(window);
  auto& cache = vanilla_cache();
  if (!cache.count(key)) {
    auto& r = rc_set(size, true, h, window);
    r.set_skip_empty(skip);
    cache[key] = r.time_vanilla({1, repetitions}).median_ms;
  }
  return cache[key];
}
double rc_vanilla_best_ms(int size, bool skip, float h) {
  double best = 1e30;
  for (const int w : vanilla_windows) best = std::min(best, rc_vanilla_ms(size, skip, h, w));
  return best;
}

void register_rc_row(const std::string& name, int size, bool skip, float h, const rc_variant& n) {
  benchmark::RegisterBenchmark(
      name.c_str(),
      [n, size, skip, h](benchmark::State& state) {
        const double vanilla_ms = rc_vanilla_best_ms(size, skip, h);
        const double vanilla_w1_ms = rc_vanilla_ms(size, skip, h, 1);
        auto& r = rc_set(size, true, h, n.window);
        r.set_skip_empty(skip);
        run_manual(state, [&] {
          if (n.every == 0) return r.time_vanilla({1, repetitions});
          variant v = make_variant(n.blocks, n.contexts, n.every < 0 ? 1 : n.every, 33);
          if (n.every < 0) return r.time_termination(v.schedule, {1, repetitions});
          return r.time_switching(v, {1, repetitions});
        });
        state.counters["step"] = h;
        state.counters["window"] = n.window;
        state.counters["vanilla_ms"] = vanilla_ms;
        state.counters["speedup"] = vanilla_ms / state.counters["ms"];
        state.counters["speedup_w1"] = vanilla_w1_ms / state.counters["ms"];
      })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}

void register_raycast_hessian() {
  const float small_steps[] = {0.4f, 0.2f, 0.1f, 0.05f, 0.025f, 0.0125f};
  const float large_steps[] = {0.05f, 0.025f, 0.0125f};
  for (const bool skip : {false, true}) {
    const std::string group = skip ? "raycast_hessian_skip/" : "raycast_hessian/";
    for (const int size : {512, 2048}) {
      // The grid the tuning rows found best: 4 blocks/SM at 512x512 (~one vanilla wave: fewer
      // warps, more rays each), occupancy-sized at 2048x2048.
      const int blocks = size == 512 ? 4 : 0;
      const int contexts = size == 512 ? 128 : 64;
      std::vector<rc_variant> variants;
      for (const int w : vanilla_windows) {
        variants.push_back({"vanilla", w, 0, 0, 0});
      }
      variants.push_back({"termination", 16, -1, 0, 64});
      variants.push_back({"immediate", 1, 1, blocks, contexts});
      variants.push_back({"deferred8", 1, 8, blocks, contexts});
      for (const int w : {16, 32, 64}) {
        variants.push_back({"immediate", w, 1, blocks, contexts});
        variants.push_back({"deferred2", w, 2, blocks, contexts});
      }
      for (const auto& n : variants) {
        for (const float h :
             size == 512 ? std::vector<float>(std::begin(small_steps), std::end(small_steps))
                         : std::vector<float>(std::begin(large_steps), std::end(large_steps))) {
          register_rc_row(group + std::to_string(size) + "/" + n.name + "_w" +
                              std::to_string(n.window) + "/step=" + std::to_string(h).substr(0, 6),
                          size, skip, h, n);
        }
      }
    }
  }
  // Tuning at the smallest step: window x deferral x blocks per SM x pool size.
  const int window_every[][2] = {{8, 1}, {16, 1}, {16, 2}, {32, 1}, {32, 2}, {64, 1}, {64, 2}};
  for (const bool skip : {false, true}) {
    for (const int size : {512, 2048}) {
      for (const auto& we : window_every) {
        for (const int blocks : {2, 4, 6, 0}) {
          for (const int contexts : {64, 128}) {
            const std::string name =
                std::string(skip ? "raycast_hessian_skip_tune/" : "raycast_hessian_tune/") +
                std::to_string(size) + "/window=" + std::to_string(we[0]) +
                "/every=" + std::to_string(we[1]) + "/blocks_per_sm=" + std::to_string(blocks) +
                "/contexts=" + std::to_string(contexts) + "/step=0.0125";
            register_rc_row(name, size, skip, 0.0125f, {"", we[0], we[1], blocks, contexts});
          }
        }
      }
    }
  }
}

//! Task order x register cap x grid x pool x window at step 0.0125 (see the header comment).
struct rc_tile {
  const char* name;
  int w, h;
};
constexpr rc_tile rc_tiles[] = {{"rows", 0, 0}, {"8x4", 8, 4}, {"16x16", 16, 16}};

double rc_tile_vanilla_ms(int size, bool skip, const rc_tile& t, int window) {
  const std::string key =
      "rcT" + std::to_string(size) + (skip ? "s" : "n") + t.name + "w" + std::to_string(window);
  auto& cache = vanilla_cache();
  if (!cache.count(key)) {
    auto& r = rc_set(size, true, 0.0125f, window);
    r.set_skip_empty(skip);
    r.set_tile(t.w, t.h);
    cache[key] = r.time_vanilla({1, repetitions}).median_ms;
  }
  return cache[key];
}
double rc_tile_vanilla_best_ms(int size, bool skip) {
  double best = 1e30;
  for (const auto& t : rc_tiles) {
    for (const int w : vanilla_windows) best = std::min(best, rc_tile_vanilla_ms(size, skip, t, w));
  }
  return best;
}

void register_raycast_tiles() {
  for (const bool skip : {false, true}) {
    const std::string group = skip ? "raycast_tiles_skip" : "raycast_tiles";
    for (const int size : {512, 2048}) {
      for (const auto& t : rc_tiles) {
        for (const int w : vanilla_windows) {
          const std::string name = group + "/" + std::to_string(size) + "/tile=" + t.name +
                                   "/vanilla_w" + std::to_string(w) + "/step=0.0125";
          benchmark::RegisterBenchmark(name.c_str(),
                                       [=](benchmark::State& state) {
                                         run_manual(state, [&] {
                                           timing_stats st;
                                           st.median_ms = rc_tile_vanilla_ms(size, skip, t, w);
                                           return st;
                                         });
                                         state.counters["window"] = w;
                                       })
              ->UseManualTime()
              ->Iterations(1)
              ->Unit(benchmark::kMillisecond);
        }
      }
    }
  }
  const int window_every[][2] = {{16, 1}, {16, 2}, {32, 1}, {64, 1}};
  for (const bool skip : {false, true}) {
    const std::string group = skip ? "raycast_tiles_skip_tune/" : "raycast_tiles_tune/";
    for (const int size : {512, 2048}) {
      for (const auto& t : rc_tiles) {
        for (const int cap : compiled_register_caps()) {
          for (const int blocks :
               size == 512 ? std::vector<int>{3, 4, 5, 6, 8, 10} : std::vector<int>{0}) {
            for (const int contexts : compiled_pool_sizes()) {
              for (const auto& we : window_every) {
                if (size == 2048 && (we[0] != 16 || contexts != 64)) continue;
                const std::string name =
                    group + std::to_string(size) + "/tile=" + t.name +
                    "/cap=" + std::to_string(cap) + "/blocks_per_sm=" + std::to_string(blocks) +
                    "/contexts=" + std::to_string(contexts) + "/window=" + std::to_string(we[0]) +
                    "/every=" + std::to_string(we[1]) + "/step=0.0125";
                const int window = we[0];
                const int every = we[1];
                benchmark::RegisterBenchmark(
                    name.c_str(),
                    [=](benchmark::State& state) {
                      const double best = rc_tile_vanilla_best_ms(size, skip);
                      const double w1_rows = rc_tile_vanilla_ms(size, skip, rc_tiles[0], 1);
                      const double w1 = rc_tile_vanilla_ms(size, skip, t, 1);
                      auto& r = rc_set(size, true, 0.0125f, window);
                      r.set_skip_empty(skip);
                      r.set_tile(t.w, t.h);
                      run_manual(state, [&] {
                        variant v = make_variant(blocks, contexts, every, 33);
                        v.min_blocks_per_sm = cap;
                        return r.time_switching(v, {1, repetitions});
                      });
                      state.counters["vanilla_ms"] = best;
                      state.counters["vanilla_w1_ms"] = w1;
                      state.counters["vanilla_w1_rows_ms"] = w1_rows;
                      state.counters["speedup"] = best / state.counters["ms"];
                      state.counters["speedup_w1"] = w1 / state.counters["ms"];
                      state.counters["speedup_w1_rows"] = w1_rows / state.counters["ms"];
                    })
                    ->UseManualTime()
                    ->Iterations(1)
                    ->Unit(benchmark::kMillisecond);
              }
            }
          }
        }
      }
    }
  }
}

//! March quorum x window x grid x pool x chunk at step 0.0125 (see the header comment).
struct rc_q_vanilla {
  const char* order;
  int tile_w, tile_h, window;
  bool center_first = false;  //!< the switching rows' expensive-tiles-first order, given to vanilla
};
std::vector<rc_q_vanilla> rc_q_vanillas(int size) {
  if (size == 2048) {
    return {{"rows", 0, 0, 1},
            {"8x4", 8, 4, 64},
            {"8x4", 8, 4, 256},
            {"center_first", 0, 0, 64, true},
            {"center_first", 0, 0, 256, true}};
  }
  return {{"rows", 0, 0, 1},
          {"8x4", 8, 4, 1},
          {"rows", 0, 0, 64},
          {"8x4", 8, 4, 32},
          {"8x4", 8, 4, 64},
          {"16x16", 16, 16, 64},
          {"center_first", 0, 0, 1, true},
          {"center_first", 0, 0, 32, true},
          {"center_first", 0, 0, 64, true}};
}
constexpr int rc_q_repetitions = 5;
double rc_q_vanilla_ms(int size, bool skip, const rc_q_vanilla& q) {
  const std::string key = std::string("rcQ") + std::to_string(size) + (skip ? "s" : "n") + q.order +
                          "w" + std::to_string(q.window);
  auto& cache = vanilla_cache();
  if (!cache.count(key)) {
    auto& r = rc_set(size, true, 0.0125f, q.window);
    r.set_skip_empty(skip);
    r.set_tile(q.tile_w, q.tile_h);
    r.set_center_first(q.center_first);
    cache[key] = (q.center_first ? r.time_vanilla_scheduled_order({1, rc_q_repetitions})
                                 : r.time_vanilla({1, rc_q_repetitions}))
                     .median_ms;
  }
  return cache[key];
}
double rc_q_vanilla_best_ms(int size, bool skip) {
  double best = 1e30;
  for (const auto& q : rc_q_vanillas(size)) best = std::min(best, rc_q_vanilla_ms(size, skip, q));
  return best;
}

void register_raycast_quorum() {
  struct sw {
    int blocks, contexts, chunk, window, quorum;
    bool fifo = false, center = false;
  };
  for (const int size : {512, 2048}) {
    for (const bool skip : {true, false}) {
      if (size == 2048 && !skip) continue;
      const std::string group =
          "raycast_q/" + std::to_string(size) + (skip ? "/skip/" : "/noskip/");
      for (const auto& q : rc_q_vanillas(size)) {
        const std::string name = group + "vanilla_" + q.order + "_w" + std::to_string(q.window);
        benchmark::RegisterBenchmark(name.c_str(),
                                     [=](benchmark::State& state) {
                                       run_manual(state, [&] {
                                         timing_stats st;
                                         st.median_ms = rc_q_vanilla_ms(size, skip, q);
                                         return st;
                                       });
                                       state.counters["window"] = q.window;
                                       state.counters["speedup_w1_rows"] =
                                           rc_q_vanilla_ms(size, skip, rc_q_vanillas(size)[0]) /
                                           state.counters["ms"];
                                     })
            ->UseManualTime()
            ->Iterations(1)
            ->Unit(benchmark::kMillisecond);
      }
      std::vector<sw> rows;
      if (size == 2048) {
        for (const int w : {16, 32, 64}) {
          for (const int quorum : {0, 8, 16}) rows.push_back({0, 64, 32, w, quorum});
        }
        for (const int blocks : {0, 4}) {
          for (const int chunk : {32, 8}) {
            for (const bool fifo : {false, true}) {
              for (const bool center : {false, true})
                rows.push_back({blocks, 64, chunk, 16, 0, fifo, center});
            }
          }
        }
      } else if (skip) {
        for (const int blocks : {3, 4}) {
          for (const int contexts : {64, 128}) {
            for (const int w : {16, 32, 64}) {
              for (const int quorum : {0, 8, 16, 24})
                rows.push_back({blocks, contexts, 32, w, quorum});
            }
          }
        }
        for (const int chunk : {8, 16}) {
          for (const int contexts : {64, 128}) {
            rows.push_back({3, contexts, chunk, 16, 0});
            rows.push_back({3, contexts, chunk, 32, 16});
          }
        }
        for (const int contexts : {64, 128}) {
          rows.push_back({2, contexts, 32, 32, 16});
          rows.push_back({5, contexts, 32, 32, 16});
        }
        // Against the tail: rings, expensive tiles first, small grabs.
        for (const int blocks : {3, 4}) {
          for (const int contexts : {64, 128}) {
            for (const int chunk : {32, 8, 4, 2, 1}) {
              for (const int w : {16, 32}) {
                for (const bool fifo : {false, true}) {
                  for (const bool center : {false, true}) {
                    if (!fifo && !center && w == 16 && blocks == 3 && chunk >= 8)
                      continue;  // above
                    rows.push_back({blocks, contexts, chunk, w, 0, fifo, center});
                  }
                }
              }
            }
          }
        }
      } else {
        for (const int contexts : {64, 128}) {
          for (const int w : {16, 32, 64}) {
            for (const int quorum : {0, 16}) rows.push_back({3, contexts, 32, w, quorum});
          }
          for (const int chunk : {32, 8, 4}) {
            for (const bool fifo : {false, true}) {
              for (const bool center : {false, true})
                rows.push_back({3, contexts, chunk, 32, 0, fifo, center});
            }
          }
        }
      }
      for (const auto& row : rows) {
        const std::string name =
            group + "switching/blocks_per_sm=" + std::to_string(row.blocks) +
            "/contexts=" + std::to_string(row.contexts) + "/chunk=" + std::to_string(row.chunk) +
            "/window=" + std::to_string(row.window) + "/quorum=" + std::to_string(row.quorum) +
            (row.fifo ? "/fifo" : "/lifo") + (row.center ? "/center_first" : "/rows");
        benchmark::RegisterBenchmark(
            name.c_str(),
            [=](benchmark::State& state) {
              const double best = rc_q_vanilla_best_ms(size, skip);
              const double w1_rows = rc_q_vanilla_ms(size, skip, rc_q_vanillas(size)[0]);
              auto& r = rc_set(size, true, 0.0125f, row.window);
              r.set_skip_empty(skip);
              r.set_march_quorum(row.quorum);
              r.set_center_first(row.center);
              run_manual(state, [&] {
                variant v = make_variant(row.blocks, row.contexts, 1, 33);
                v.schedule.chunk = static_cast<std::uint64_t>(row.chunk);
                v.schedule.switching.fifo = row.fifo;
                return r.time_switching(v, {1, rc_q_repetitions});
              });
              state.counters["window"] = row.window;
              state.counters["quorum"] = row.quorum;
              state.counters["vanilla_ms"] = best;
              state.counters["vanilla_w1_rows_ms"] = w1_rows;
              state.counters["speedup"] = best / state.counters["ms"];
              state.counters["speedup_w1_rows"] = w1_rows / state.counters["ms"];
            })
            ->UseManualTime()
            ->Iterations(1)
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
}

//! The ray caster against the baselines a demanding user would write, step 0.0125, Sobel
//! Hessian, at 512x512 and 2048x2048, with and without empty-space skipping (see the header
//! comment). The baselines of a (size, skip) pair are measured once, on first use.
struct rc_baseline_set {
  double textbook_ms = 0;  //!< vanilla, window 1, row-major
  vanilla_search vanilla;  //!< the fastest windowed vanilla (window x task order)
  double wavefront_ms = 0;
  std::string wavefront_label;
  raycast_ideal ideal;  //!< the work counted, at full SIMD efficiency
};
constexpr int rc_base_repetitions = 5;
constexpr int rc_base_windows[] = {16, 32, 64, 256};
struct rc_wave_order {
  const char* name;
  int tile_w, tile_h, window;
  bool center_first;
};
constexpr rc_wave_order rc_wave_orders[] = {{"8x4", 8, 4, 64, false},
                                            {"8x4", 8, 4, 16, false},
                                            {"center_first", 0, 0, 64, true},
                                            {"rows", 0, 0, 64, false}};

raycast_runner& rc_base_set(int size, bool skip) {
  auto& r = rc_set(size, true, 0.0125f, 16);
  r.set_skip_empty(skip);
  return r;
}

//! Times one wavefront order (checked once against vanilla: every ray once, within tolerance 2).
double rc_wavefront_ms(int size, bool skip, const rc_wave_order& o) {
  const std::string key = std::string("rcW") + std::to_string(size) + (skip ? "s" : "n") + o.name +
                          "w" + std::to_string(o.window);
  auto& cache = vanilla_cache();
  if (!cache.count(key)) {
    auto& r = rc_base_set(size, skip);
    r.set_march_window(o.window);
    r.set_tile(o.tile_w, o.tile_h);
    r.set_center_first(o.center_first);
    const auto c = r.check_wavefront(2, 0.001);  // the raycast sample's --verify tolerance
    if (!c.tasks.passed) {
      throw std::runtime_error("raycast wavefront differs from vanilla: " + c.tasks.detail);
    }
    cache[key] = r.time_wavefront({1, rc_base_repetitions}).median_ms;
  }
  return cache[key];
}

rc_baseline_set& rc_baselines(int size, bool skip) {
  static std::map<std::pair<int, bool>, rc_baseline_set> sets;
  const auto key = std::make_pair(size, skip);
  auto it = sets.find(key);
  if (it != sets.end()) return it->second;
  rc_baseline_set b;
  auto& r = rc_base_set(size, skip);
  r.set_march_window(1);
  b.ideal = r.measure_ideal({1, rc_base_repetitions});
  b.textbook_ms = r.time_vanilla({1, rc_base_repetitions}).median_ms;
  b.vanilla =
      r.time_vanilla_best(std::vector<int>(std::begin(rc_base_windows), std::end(rc_base_windows)),
                          {1, rc_base_repetitions});
  b.wavefront_ms = 1e30;
  for (const auto& o : rc_wave_orders) {
    const double ms = rc_wavefront_ms(size, skip, o);
    if (ms < b.wavefront_ms) {
      b.wavefront_ms = ms;
      b.wavefront_label = std::string(o.name) + " w" + std::to_string(o.window);
    }
  }
  return sets.emplace(key, b).first->second;
}

void register_raycast_baselines() {
  struct sw {
    const char* name;
    int blocks, contexts, chunk, window, every;
    bool fifo, center;
  };
  for (const int size : {512, 2048}) {
    for (const bool skip : {true, false}) {
      const std::string group = "rc_base/" + std::to_string(size) + (skip ? "/skip/" : "/noskip/");
      const auto add_row = [&](const std::string& row, auto&& time) {
        benchmark::RegisterBenchmark(
            (group + row).c_str(),
            [=](benchmark::State& state) {
              rc_baseline_set* b = nullptr;
              try {
                b = &rc_baselines(size, skip);
              } catch (const std::exception& e) {
                state.SkipWithError(e.what());
                return;
              }
              std::string label;
              run_manual(state, [&] { return time(*b, label); });
              if (!label.empty()) state.SetLabel(label);
              state.counters["textbook_ms"] = b->textbook_ms;
              state.counters["vanilla_best_ms"] = b->vanilla.stats.median_ms;
              state.counters["wavefront_ms"] = b->wavefront_ms;
              state.counters["x_textbook"] = b->textbook_ms / state.counters["ms"];
              state.counters["x_vanilla_best"] = b->vanilla.stats.median_ms / state.counters["ms"];
              state.counters["x_wavefront"] = b->wavefront_ms / state.counters["ms"];
              const double best = std::min(b->vanilla.stats.median_ms, b->wavefront_ms);
              state.counters["x_best_baseline"] = best / state.counters["ms"];
              state.counters["ideal_ms"] = b->ideal.ideal_ms();
              state.counters["of_ideal"] = b->ideal.ideal_ms() / state.counters["ms"];
            })
            ->UseManualTime()
            ->Iterations(1)
            ->Unit(benchmark::kMillisecond);
      };
      add_row("vanilla_textbook", [](rc_baseline_set& b, std::string& label) {
        label = "rows w1";
        timing_stats t;
        t.median_ms = b.textbook_ms;
        return t;
      });
      // The ideal: the counted work at the rates of kernels without divergence; the label
      // gives the work per ray and the rates.
      add_row("ideal", [](rc_baseline_set& b, std::string& label) {
        const auto& i = b.ideal;
        const double rays = static_cast<double>(i.rays);
        char text[200];
        std::snprintf(text, sizeof(text),
                      "per ray %.1f samples x %.2f ps + %.3f shades x %.1f ps (GPU-wide), rays "
                      "%.3f ms",
                      static_cast<double>(i.samples) / rays, i.sample_ns * 1e3,
                      static_cast<double>(i.shades) / rays, i.shade_ns * 1e3, i.ray_ms);
        label = std::string(i.image_matches ? "" : "COUNTED RUN DIFFERS FROM VANILLA: ") + text;
        timing_stats t;
        t.median_ms = i.ideal_ms();
        return t;
      });
      add_row("vanilla_best", [](rc_baseline_set& b, std::string& label) {
        label = b.vanilla.order + " w" + std::to_string(b.vanilla.window);
        return b.vanilla.stats;
      });
      for (const auto& o : rc_wave_orders) {
        add_row(std::string("wavefront_") + o.name + "_w" + std::to_string(o.window),
                [size, skip, o](rc_baseline_set&, std::string& label) {
                  label = "checked";
                  timing_stats t;
                  t.median_ms = rc_wavefront_ms(size, skip, o);
                  return t;
                });
      }
      std::vector<sw> rows;
      const int blocks = size == 512 ? 3 : 0;
      const int contexts = size == 512 ? 128 : 64;
      for (const int w : {16, 32, 64}) {
        for (const int every : {1, 2}) {
          rows.push_back({"switching", blocks, contexts, 4, w, every, true, true});
        }
      }
      rows.push_back({"switching", blocks, contexts, 32, 16, 1, false, false});
      rows.push_back({"switching", blocks, contexts == 64 ? 128 : 64, 4, 16, 1, true, true});
      rows.push_back({"switching", size == 512 ? 4 : 4, contexts, 4, 16, 1, true, true});
      if (size == 2048) {
        // More warps than the automatic grid's 16 per SM (an error names what fits).
        for (const int more : {5, 6}) rows.push_back({"switching", more, 64, 4, 16, 1, true, true});
      }
      for (const auto& row : rows) {
        const std::string name =
            std::string(row.name) + "/blocks_per_sm=" + std::to_string(row.blocks) +
            "/contexts=" + std::to_string(row.contexts) + "/chunk=" + std::to_string(row.chunk) +
            "/window=" + std::to_string(row.window) + "/every=" + std::to_string(row.every) +
            (row.fifo ? "/fifo" : "/lifo") + (row.center ? "/center_first" : "/rows");
        add_row(name, [size, skip, row](rc_baseline_set&, std::string&) {
          auto& r = rc_base_set(size, skip);
          r.set_march_window(row.window);
          r.set_center_first(row.center);
          variant v = make_variant(row.blocks, row.contexts, row.every, 33);
          v.schedule.chunk = static_cast<std::uint64_t>(row.chunk);
          v.schedule.switching.fifo = row.fifo;
          return r.time_switching(v, {1, rc_base_repetitions});
        });
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // --help, unknown arguments and MICROSCHED_BENCH_TASKS are checked before the GPU is looked
  // for; without a GPU the program says so and exits with programs::no_gpu_exit_code (77).
  MICROSCHED_PARSE_BENCHMARK_ARGUMENTS("bench_switching", argc, argv);
  return programs::run_main("bench_switching", [] {
    (void)bench_tasks();
    programs::require_gpu();
    const auto info = current_device();
    std::printf("device: %s\n", describe(info).c_str());
    benchmark::AddCustomContext("device", describe(info));
    register_mc();
    register_raycast();
    register_raycast_large();
    register_raycast_hessian();
    register_raycast_tiles();
    register_raycast_quorum();
    register_raycast_baselines();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  });
}
