// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// bench_switching: context switching for branch divergence (frey2012 §5.1 and §5.3), measured on
// the device it runs on, CUDA events into SetIterationTime (manual time, median over the
// repetitions). The default run is the table the docs cite; MICROSCHED_BENCH_STUDIES=1 adds the
// parameter studies.
//   mc_branch/<row>/p=<p>          Monte Carlo branch test at p = 0.01, 0.9 and 1: vanilla (the
//                                  textbook loop), vanilla_w16 and vanilla_w64 (a march window of
//                                  outer iterations per step), wavefront and wavefront_w16 (CUB
//                                  queues between kernels), best_direct (the fastest direct form
//                                  the default timed, in turns with it), microsched (the default:
//                                  the automatic switching schedule; the label names its choice);
//                                  counters ideal_ms (vanilla at p = 1 scaled by the work at p),
//                                  x_best_hand (against the fastest of the vanilla and wavefront
//                                  rows), x_best_direct, of_ideal. Studies: every p from 0.001 to
//                                  1, fixed switching settings (microsched_*), pool and grid.
//   rc_base/<size>/<skip|noskip>/<row>  the ray caster (Sobel Hessian shading, step 0.0125) at
//                                  512x512 and 2048x2048, with and without empty-space skipping:
//                                  vanilla_textbook (window 1, rows), vanilla_best (the fastest
//                                  of windows 16..256 x task orders rows, 8x4, 16x16, expensive
//                                  tiles first, the winner timed afresh after the search; the
//                                  label names it), wavefront_<order>_w<w> and
//                                  wavefront_split (the expert split march/shade wavefront,
//                                  8x4 w64; both checked against vanilla first), ideal (the work
//                                  counted, priced at the rates of kernels without divergence;
//                                  the label gives the work per ray and the longest ray alone),
//                                  best_direct and microsched (the default; label: its choice);
//                                  counters x_vanilla_best, x_wavefront, x_wavefront_split,
//                                  x_best_baseline (against the fastest of vanilla_best, the
//                                  wavefronts and wavefront_split), of_ideal, longest_ray_ms (the
//                                  heaviest rays run alone: the tail's bound). Studies: switching
//                                  rows of fixed settings; raycast_hessian[_skip]/<size>/... the
//                                  step sizes and march windows of vanilla and switching.
// Environment: MICROSCHED_BENCH_TASKS (Monte Carlo tasks, default 524288),
// MICROSCHED_BENCH_STUDIES (1: register the parameter studies too).
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
#include "switching_workloads.hpp"

using namespace microsched;
using namespace microsched::switching_workloads;

namespace {

constexpr int repetitions = 3;

variant make_variant(int blocks_per_sm, int contexts, int every) {
  variant v;
  v.schedule.strategy = pool_strategy::hybrid;
  v.schedule.chunk = 32;
  v.schedule.blocks_per_sm = blocks_per_sm;
  v.contexts_per_warp = contexts;
  v.schedule.switching.switch_every = every;
  return v;
}

//! MICROSCHED_BENCH_STUDIES: unset or 0, the default table only; 1, the studies too. Throws
//! std::invalid_argument naming the variable and its value.
bool bench_studies() {
  const char* t = std::getenv("MICROSCHED_BENCH_STUDIES");
  if (t == nullptr) return false;
  return programs::parse_checked("MICROSCHED_BENCH_STUDIES", t, 0, 1) == 1;
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
raycast_runner& rc_set(int size, float h, int window) {
  auto& r = rc_at(size);
  r.set_skip_empty(false);
  r.set_tile(0, 0);
  r.set_center_first(false);
  r.set_step_size(h);
  r.set_march_window(window);
  return r;
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
  const auto r = mc().verify_wavefront();
  if (!r.passed) {
    throw std::runtime_error("wavefront differs from vanilla at p=" + std::to_string(p) + ": " +
                             r.detail);
  }
  checked[p] = true;
}

//! The wavefront at p with a march window, checked first where a check is listed; cached.
double mc_wavefront_ms(float p, std::uint32_t window) {
  const std::string key = "mcW" + std::to_string(p) + "w" + std::to_string(window);
  auto& cache = vanilla_cache();
  if (!cache.count(key)) {
    if (p == 0.001f || p == 0.01f || p == 0.1f || p == 1.0f) mc_check_wavefront(p);
    mc().set_probability(p);
    mc().set_march_window(window);
    cache[key] = mc().time_wavefront({1, repetitions}).median_ms;
    mc().set_march_window(1);
  }
  return cache[key];
}

//! The default at p (a march window of 16 given to the program; the default picks its own),
//! decided on runs before the timed ones and timed in turns with the fastest direct form; cached.
const default_times& mc_default(float p) {
  static std::map<float, default_times> cache;
  auto it = cache.find(p);
  if (it != cache.end()) return it->second;
  mc().set_probability(p);
  mc().set_march_window(16);
  const default_times d = mc().time_default({1, repetitions});
  mc().set_march_window(1);
  return cache.emplace(p, d).first->second;
}

//! The fastest hand-written form at p: vanilla at windows 1, 16, 64 and the wavefront at 1, 16.
double mc_best_hand_ms(float p) {
  double best = 1e300;
  for (const std::uint32_t w : {1u, 16u, 64u}) best = std::min(best, mc_vanilla_ms(p, w));
  for (const std::uint32_t w : {1u, 16u}) best = std::min(best, mc_wavefront_ms(p, w));
  return best;
}

//! What an mc_branch row times.
enum class mc_kind { vanilla, wavefront, best_direct, automatic, switching };

//! One mc_branch row, registered at each p.
struct mc_row {
  const char* name;
  mc_kind k;
  std::uint32_t window;  //!< outer iterations per step
  variant v;
  bool study = false;  //!< registered with MICROSCHED_BENCH_STUDIES=1 only
};

//! Every mc_branch row: the hand-written forms, the default, and the fixed switching studies.
std::vector<mc_row> mc_rows() {
  const auto sw = [](int blocks, int contexts, int every) {
    return make_variant(blocks, contexts, every);
  };
  return {{"vanilla", mc_kind::vanilla, 1, {}},
          {"vanilla_w16", mc_kind::vanilla, 16, {}},
          {"vanilla_w64", mc_kind::vanilla, 64, {}},
          {"wavefront", mc_kind::wavefront, 1, {}},
          {"wavefront_w16", mc_kind::wavefront, 16, {}},
          {"best_direct", mc_kind::best_direct, 0, {}},
          {"microsched", mc_kind::automatic, 0, {}},
          {"microsched_hybrid", mc_kind::switching, 16, sw(4, 128, 1), true},
          {"microsched_w1", mc_kind::switching, 1, sw(4, 128, 1), true},
          {"microsched_w4", mc_kind::switching, 4, sw(4, 128, 1), true},
          {"microsched_w64", mc_kind::switching, 64, sw(4, 128, 1), true},
          {"microsched_w16_deferred2", mc_kind::switching, 16, sw(4, 128, 2), true},
          {"microsched_w16_blocks8", mc_kind::switching, 16, sw(8, 64, 1), true},
          {"microsched_w1_deferred4", mc_kind::switching, 1, sw(4, 128, 4), true}};
}

//! Times row `n` at p; sets the label and, for the default's rows, the best direct form's time.
timing_stats time_mc_row(const mc_row& n, float p, std::string& label, double& best_direct_ms) {
  timing_stats t;
  switch (n.k) {
    case mc_kind::vanilla:
      t.median_ms = mc_vanilla_ms(p, n.window);
      return t;
    case mc_kind::wavefront:
      t.median_ms = mc_wavefront_ms(p, n.window);
      return t;
    case mc_kind::best_direct:
    case mc_kind::automatic: {
      const auto& d = mc_default(p);
      best_direct_ms = d.best_direct.median_ms;
      label = n.k == mc_kind::automatic ? d.choice : d.direct_form;
      return n.k == mc_kind::automatic ? d.chosen : d.best_direct;
    }
    case mc_kind::switching:
      break;
  }
  mc().set_march_window(n.window);
  t = mc().time_switching(n.v, {1, repetitions});
  mc().set_march_window(1);
  label = last_switching_schedule();
  return t;
}

//! The benchmark of row `n` at p: its time and its counters against vanilla and the ideal.
void run_mc_row(benchmark::State& state, const mc_row& n, float p) {
  double vanilla_ms = 0;
  double best_hand_ms = 0;
  double full_ms = 0;
  try {
    vanilla_ms = mc_vanilla_ms(p);
    full_ms = mc_vanilla_ms(1.0f);
    best_hand_ms = mc_best_hand_ms(p);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  mc().set_probability(p);
  const auto& s = mc().settings();
  const double ideal_ms = full_ms * montecarlo_branch_work_share(p, s.inner);
  std::string label;
  double best_direct_ms = 0;
  run_manual(state, [&] { return time_mc_row(n, p, label, best_direct_ms); });
  if (!label.empty()) state.SetLabel(label);
  state.counters["p"] = p;
  state.counters["vanilla_ms"] = vanilla_ms;
  state.counters["ideal_ms"] = ideal_ms;
  state.counters["speedup"] = vanilla_ms / state.counters["ms"];
  state.counters["x_best_hand"] = best_hand_ms / state.counters["ms"];
  if (best_direct_ms > 0) {
    state.counters["x_best_direct"] = best_direct_ms / state.counters["ms"];
  }
  state.counters["of_ideal"] = ideal_ms / state.counters["ms"];
  if (n.k == mc_kind::wavefront) state.counters["rounds"] = mc().wavefront_rounds();
}

//! The studies' grid of switching settings at p = 0.01: blocks per SM x contexts per warp.
void register_mc_tuning() {
  for (const int blocks : {2, 4, 8, 0}) {
    for (const int contexts : {64, 128}) {
      const std::string name = "mc_branch_tune/blocks_per_sm=" + std::to_string(blocks) +
                               "/contexts=" + std::to_string(contexts) + "/p=0.01";
      benchmark::RegisterBenchmark(
          name.c_str(),
          [blocks, contexts](benchmark::State& state) {
            const double vanilla_ms = mc_vanilla_ms(0.01f);
            mc().set_probability(0.01f);
            mc().set_march_window(16);
            run_manual(state, [&] {
              return mc().time_switching(make_variant(blocks, contexts, 1), {1, repetitions});
            });
            mc().set_march_window(1);
            state.counters["speedup"] = vanilla_ms / state.counters["ms"];
          })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

//! The mc_branch rows at the target p; with MICROSCHED_BENCH_STUDIES, every p and the tuning.
void register_mc() {
  const bool studies = bench_studies();
  const float ps[] = {0.001f, 0.003f, 0.01f, 0.03f, 0.1f, 0.3f, 0.5f, 0.9f, 1.0f};
  for (const mc_row& n : mc_rows()) {
    if (n.study && !studies) continue;
    for (const float p : ps) {
      const bool target = p == 0.01f || p == 0.9f || p == 1.0f;
      if (!target && !studies) continue;
      const std::string name =
          std::string("mc_branch/") + n.name + "/p=" + std::to_string(p).substr(0, 5);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [n, p](benchmark::State& state) { run_mc_row(state, n, p); })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
  if (!studies) return;
  register_mc_tuning();
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
    auto& r = rc_set(size, h, window);
    r.set_skip_empty(skip);
    cache[key] = r.time_vanilla_tile_order({1, repetitions}).median_ms;
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
        auto& r = rc_set(size, h, n.window);
        r.set_skip_empty(skip);
        run_manual(state, [&] {
          if (n.every == 0) return r.time_vanilla_tile_order({1, repetitions});
          variant v = make_variant(n.blocks, n.contexts, n.every < 0 ? 1 : n.every);
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

//! The ray caster against the baselines a demanding user would write, step 0.0125, Sobel
//! Hessian, at 512x512 and 2048x2048, with and without empty-space skipping (see the header
//! comment). The baselines of a (size, skip) pair are measured once, on first use.
struct rc_baseline_set {
  double textbook_ms = 0;  //!< vanilla, window 1, row-major
  vanilla_search vanilla;  //!< the fastest windowed vanilla (window x task order)
  double wavefront_ms = 0;
  std::string wavefront_label;
  double split_ms = 0;  //!< the expert split march/shade wavefront
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
  auto& r = rc_set(size, 0.0125f, 16);
  r.set_skip_empty(skip);
  return r;
}

//! The runner of (size, skip) set to wavefront order `o`.
raycast_runner& rc_wave_set(int size, bool skip, const rc_wave_order& o) {
  auto& r = rc_base_set(size, skip);
  r.set_march_window(o.window);
  r.set_tile(o.tile_w, o.tile_h);
  r.set_center_first(o.center_first);
  return r;
}

//! Throws naming the missing, duplicated and differing rays of a failed check of `what`.
void require_passed(const image_check& c, const std::string& what) {
  if (c.tasks.passed) return;
  throw std::runtime_error(
      "raycast " + what + " differs from vanilla: " + std::to_string(c.tasks.missing) +
      " rays missing, " + std::to_string(c.tasks.duplicated) + " duplicated, " +
      std::to_string(c.tasks.mismatched) + " pixels over tolerance: " + c.tasks.detail);
}

//! Times one wavefront order (checked once against vanilla: every ray once, within tolerance 2,
//! the raycast sample's --verify tolerance).
double rc_wavefront_ms(int size, bool skip, const rc_wave_order& o) {
  const std::string key = std::string("rcW") + std::to_string(size) + (skip ? "s" : "n") + o.name +
                          "w" + std::to_string(o.window);
  auto& cache = vanilla_cache();
  if (!cache.count(key)) {
    auto& r = rc_wave_set(size, skip, o);
    require_passed(r.verify_wavefront(2, 0.001), "wavefront");
    cache[key] = r.time_wavefront({1, rc_base_repetitions}).median_ms;
  }
  return cache[key];
}

//! The expert split march/shade wavefront's order and march window (the window only sets how
//! many samples one call of the step's march takes: the march kernel goes on to the crossing).
constexpr rc_wave_order rc_split_order = {"8x4", 8, 4, 64, false};

//! Times the expert split wavefront, checked once as the wavefront orders are.
double rc_split_ms(int size, bool skip) {
  auto& r = rc_wave_set(size, skip, rc_split_order);
  require_passed(r.verify_expert_wavefront(2, 0.001), "wavefront_split");
  return r.time_expert_wavefront({1, rc_base_repetitions}).median_ms;
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
  b.textbook_ms = r.time_vanilla_tile_order({1, rc_base_repetitions}).median_ms;
  b.vanilla =
      r.time_vanilla_best(std::vector<int>(std::begin(rc_base_windows), std::end(rc_base_windows)),
                          {1, rc_base_repetitions});
  // Before the wavefront orders, which leave the settings as the rows after them expect.
  b.split_ms = rc_split_ms(size, skip);
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

//! The default on the ray caster at (size, skip), step 0.0125; cached.
const default_times& rc_default(int size, bool skip) {
  static std::map<std::pair<int, bool>, default_times> cache;
  const auto key = std::make_pair(size, skip);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto& r = rc_base_set(size, skip);
  return cache.emplace(key, r.time_default({1, rc_base_repetitions})).first->second;
}

//! The benchmark of one rc_base row: `time(baselines, label)`, and counters against the
//! baselines of (size, skip) and the ideal.
template <class Time>
void run_rc_base_row(benchmark::State& state, int size, bool skip, const Time& time) {
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
  state.counters["wavefront_split_ms"] = b->split_ms;
  state.counters["x_wavefront_split"] = b->split_ms / state.counters["ms"];
  const double best = std::min({b->vanilla.stats.median_ms, b->wavefront_ms, b->split_ms});
  state.counters["x_best_baseline"] = best / state.counters["ms"];
  state.counters["ideal_ms"] = b->ideal.ideal_ms();
  state.counters["of_ideal"] = b->ideal.ideal_ms() / state.counters["ms"];
  state.counters["longest_ray_ms"] = b->ideal.longest_ray_ms;
}

//! Registers rc_base/<size>/<skip|noskip>/<row>, timed by `time(baselines, label)`.
template <class Time>
void add_rc_base_row(int size, bool skip, const std::string& row, const Time& time) {
  const std::string group = "rc_base/" + std::to_string(size) + (skip ? "/skip/" : "/noskip/");
  benchmark::RegisterBenchmark(
      (group + row).c_str(),
      [=](benchmark::State& state) { run_rc_base_row(state, size, skip, time); })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}

//! The ideal row: the counted work at the rates of kernels without divergence; the label gives
//! the work per ray and the rates.
timing_stats rc_ideal_row(rc_baseline_set& b, std::string& label) {
  const auto& i = b.ideal;
  const double rays = static_cast<double>(i.rays);
  char text[300];
  std::snprintf(text, sizeof(text),
                "per ray %.1f samples x %.2f ps + %.3f shades x %.1f ps (GPU-wide), rays "
                "%.3f ms; longest ray alone %.3f ms (%u samples, %u shades)",
                static_cast<double>(i.samples) / rays, i.sample_ns * 1e3,
                static_cast<double>(i.shades) / rays, i.shade_ns * 1e3, i.ray_ms, i.longest_ray_ms,
                i.longest_ray_samples, i.longest_ray_shades);
  label = std::string(i.image_matches ? "" : "COUNTED RUN DIFFERS FROM VANILLA: ") + text;
  timing_stats t;
  t.median_ms = i.ideal_ms();
  return t;
}

//! The baseline rows of (size, skip): textbook and best vanilla, the ideal, each wavefront
//! order, the expert split wavefront, and the default with its best direct form.
void register_rc_base_baselines(int size, bool skip) {
  add_rc_base_row(size, skip, "vanilla_textbook", [](rc_baseline_set& b, std::string& label) {
    label = "rows w1";
    timing_stats t;
    t.median_ms = b.textbook_ms;
    return t;
  });
  add_rc_base_row(size, skip, "ideal", &rc_ideal_row);
  add_rc_base_row(size, skip, "vanilla_best", [](rc_baseline_set& b, std::string& label) {
    label = b.vanilla.label();
    return b.vanilla.stats;
  });
  for (const auto& o : rc_wave_orders) {
    add_rc_base_row(size, skip,
                    std::string("wavefront_") + o.name + "_w" + std::to_string(o.window),
                    [size, skip, o](rc_baseline_set&, std::string& label) {
                      label = "checked";
                      timing_stats t;
                      t.median_ms = rc_wavefront_ms(size, skip, o);
                      return t;
                    });
  }
  add_rc_base_row(size, skip, "wavefront_split", [](rc_baseline_set& b, std::string& label) {
    const auto& o = rc_split_order;
    label = std::string(o.name) + " w" + std::to_string(o.window) + " checked";
    timing_stats t;
    t.median_ms = b.split_ms;
    return t;
  });
  // The default: decided on runs before the timed ones, timed in turns with the fastest
  // direct form it found (the two rows share that measurement).
  for (const bool chosen : {false, true}) {
    add_rc_base_row(size, skip, chosen ? "microsched" : "best_direct",
                    [size, skip, chosen](rc_baseline_set&, std::string& label) {
                      const default_times& d = rc_default(size, skip);
                      label = chosen ? d.choice : d.direct_form;
                      return chosen ? d.chosen : d.best_direct;
                    });
  }
}

//! A fixed switching setting of the rc_base rows.
struct rc_switching_row {
  const char* name;
  int blocks, contexts, chunk, window, every;
  bool fifo, center;
};

//! The fixed switching rows at `size`: the best setting of the studies, and with
//! MICROSCHED_BENCH_STUDIES the rest.
std::vector<rc_switching_row> rc_switching_rows(int size) {
  std::vector<rc_switching_row> rows;
  const int blocks = size == 512 ? 3 : 0;
  const int contexts = size == 512 ? 128 : 64;
  // The best fixed switching setting of the studies; the rest with MICROSCHED_BENCH_STUDIES.
  rows.push_back({"switching", blocks, contexts, 4, 16, 1, true, true});
  if (bench_studies()) {
    for (const int w : {32, 64})
      rows.push_back({"switching", blocks, contexts, 4, w, 1, true, true});
    for (const int w : {16, 32, 64}) {
      rows.push_back({"switching", blocks, contexts, 4, w, 2, true, true});
    }
    rows.push_back({"switching", blocks, contexts, 32, 16, 1, false, false});
    rows.push_back({"switching", blocks, contexts == 64 ? 128 : 64, 4, 16, 1, true, true});
    rows.push_back({"switching", 4, contexts, 4, 16, 1, true, true});
    if (size == 2048) {
      // More warps than the automatic grid's 16 per SM (an error names what fits).
      for (const int more : {5, 6}) rows.push_back({"switching", more, 64, 4, 16, 1, true, true});
    }
  }
  return rows;
}

//! Registers the fixed switching rows of (size, skip), named after their settings.
void register_rc_base_switching(int size, bool skip) {
  for (const auto& row : rc_switching_rows(size)) {
    const std::string name =
        std::string(row.name) + "/blocks_per_sm=" + std::to_string(row.blocks) +
        "/contexts=" + std::to_string(row.contexts) + "/chunk=" + std::to_string(row.chunk) +
        "/window=" + std::to_string(row.window) + "/every=" + std::to_string(row.every) +
        (row.fifo ? "/fifo" : "/lifo") + (row.center ? "/center_first" : "/rows");
    add_rc_base_row(size, skip, name, [size, skip, row](rc_baseline_set&, std::string&) {
      auto& r = rc_base_set(size, skip);
      r.set_march_window(row.window);
      r.set_center_first(row.center);
      variant v = make_variant(row.blocks, row.contexts, row.every);
      v.schedule.chunk = static_cast<std::uint64_t>(row.chunk);
      v.schedule.switching.fifo = row.fifo;
      return r.time_switching(v, {1, rc_base_repetitions});
    });
  }
}

//! The rc_base rows of every size, with and without empty-space skipping.
void register_raycast_baselines() {
  for (const int size : {512, 2048}) {
    for (const bool skip : {true, false}) {
      register_rc_base_baselines(size, skip);
      register_rc_base_switching(size, skip);
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
    (void)bench_studies();
    programs::require_gpu();
    const auto info = current_device();
    std::printf("device: %s\n", describe(info).c_str());
    benchmark::AddCustomContext("device", describe(info));
    register_mc();
    register_raycast_baselines();
    if (bench_studies()) register_raycast_hessian();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  });
}
