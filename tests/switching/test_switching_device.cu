// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device tests of the context-switching driver (label gpu): every task ends exactly once and its
// outputs equal the vanilla kernel's (the same program with ordinary branches), for several pool
// sizes and task-pool strategies, with and without deferred switching,
// with one managed branch (Monte Carlo branch test) and two (one of them if/else with work on
// both paths). The wavefront baseline (kernels/switching/wavefront.cuh) is checked the same
// way, and through the runners' public API, as are the ray caster's expert split wavefront,
// the windowed-vanilla search and the ray caster's ideal (the counted run's image).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "baselines/vanilla.cuh"
#include "lowbias32.hpp"
#include "microsched/check/counted_program.cuh"
#include "microsched/device_buffer.hpp"
#include "microsched/scheduler.cuh"
#include "microsched/switching/divergent_program.cuh"
#include "montecarlo_branch/montecarlo_branch_program.cuh"
#include "switching_workloads.hpp"
#include "wavefront.cuh"

using namespace microsched;
using namespace microsched::switching;

namespace {

//! Under compute-sanitizer (MICROSCHED_SANITIZE_SMALL set) the large cases shrink tenfold.
bool small_run() {
  return std::getenv("MICROSCHED_SANITIZE_SMALL") != nullptr;
}

__host__ __device__ inline std::uint32_t mix(std::uint32_t x) {
  return microsched::kernels::lowbias32(x);
}

//! Two managed branches per step; branch 1 has work on both paths; task lengths vary.
struct two_branch_program {
  static constexpr int managed_branches = 2;
  struct context {
    std::uint32_t task = 0;
    std::uint32_t iteration = 0;
    std::uint32_t h = 0;
    std::uint32_t acc = 0;
  };
  std::uint32_t* out = nullptr;
  std::uint32_t* steps_out = nullptr;

  __device__ context begin(task_id t) const {
    context c;
    c.task = static_cast<std::uint32_t>(t);
    c.acc = mix(c.task);
    return c;
  }
  template <class Gate>
  __device__ bool step(context& c, Gate& gate) const {
    bool b0 = false;
    if (gate.active()) {
      c.h = mix(c.task * 7919u + c.iteration);
      b0 = (c.h & 7u) == 0;
    }
    if (gate.take(branch<0>, b0)) {
      for (std::uint32_t k = 0; k < 24; ++k) c.acc = c.acc * 31u + mix(c.h + k);
    }
    bool b1 = false;
    if (gate.active()) b1 = ((c.h >> 8) % 3u) == 0;
    if (gate.take(branch<1>, b1)) {
      for (std::uint32_t k = 0; k < 12; ++k) c.acc ^= mix(c.acc + k);
    } else if (gate.active()) {
      c.acc += 7u + (c.h >> 16);
    }
    if (!gate.active()) return false;
    return ++c.iteration >= 1 + mix(c.task) % 60u;
  }
  __device__ void end(task_id t, const context& c) const {
    out[t] = c.acc;
    steps_out[t] = c.iteration;
  }
};

struct outputs {
  std::vector<std::uint32_t> a, b, counts;
};

template <class Program>
Program with_outputs(Program p, std::uint32_t* a, std::uint32_t* b);
template <>
two_branch_program with_outputs(two_branch_program p, std::uint32_t* a, std::uint32_t* b) {
  p.out = a;
  p.steps_out = b;
  return p;
}
template <>
kernels::montecarlo_branch_program with_outputs(kernels::montecarlo_branch_program p,
                                                std::uint32_t* a, std::uint32_t* b) {
  p.sum_out = a;
  p.entered_out = b;
  return p;
}

template <class Program>
outputs run_vanilla(const Program& program, task_id n) {
  device_buffer<std::uint32_t> a(n), b(n);
  a.fill_bytes(0xff, nullptr);
  b.fill_bytes(0xff, nullptr);
  baselines::run_vanilla(divergent_program<Program>{with_outputs(program, a.data(), b.data())}, n,
                         nullptr);
  return {a.to_host(nullptr), b.to_host(nullptr), {}};
}

template <class Program, int Contexts>
outputs run_switching(const Program& program, task_id n, const schedule_arguments& args) {
  device_buffer<std::uint32_t> a(n), b(n), counts(n);
  a.fill_bytes(0xff, nullptr);
  b.fill_bytes(0xff, nullptr);
  counts.fill_bytes(0, nullptr);
  using counted = counted_program<Program>;
  scheduler<counted, switching_policy<128, Contexts>> sched(args);
  sched.run(counted{with_outputs(program, a.data(), b.data()), counts.data()}, n, nullptr);
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  return {a.to_host(nullptr), b.to_host(nullptr), counts.to_host(nullptr)};
}

void verify_equal(const outputs& want, const outputs& got, const std::string& what) {
  INFO(what);
  std::size_t bad_count = 0, bad_a = 0, bad_b = 0;
  for (std::size_t t = 0; t < want.a.size(); ++t) {
    bad_count += got.counts[t] != 1;
    bad_a += got.a[t] != want.a[t];
    bad_b += got.b[t] != want.b[t];
  }
  CHECK(bad_count == 0);
  CHECK(bad_a == 0);
  CHECK(bad_b == 0);
}

template <class Program, int Contexts>
void verify_all_variants(const Program& program, task_id n, const outputs& want) {
  // Under the sanitizers: two strategies (each launch runs ~100x slower).
  const std::vector<pool_strategy> strategies =
      small_run() ? std::vector<pool_strategy>{pool_strategy::hybrid, pool_strategy::private_pools}
                  : std::vector<pool_strategy>{pool_strategy::hybrid, pool_strategy::private_pools,
                                               pool_strategy::local};
  for (const auto strategy : strategies) {
    for (const int every : {1, 4}) {
      for (const std::uint32_t default_then : {0u, 0xffffffffu}) {
        {
          for (const bool fifo : {false, true}) {
            if (every == 1 && default_then != 0) continue;  // no deferred visits: default unused
            // Rings (fifo) under the sanitizers: the hybrid pools only.
            if (small_run() && fifo && strategy != pool_strategy::hybrid) continue;
            schedule_arguments args;
            args.strategy = strategy;
            args.chunk = strategy == pool_strategy::local ? 512 : 16;
            switching_arguments& sw = args.switching;
            sw.switch_every = every;
            sw.default_then = default_then;
            sw.fifo = fifo;
            const auto got = run_switching<Program, Contexts>(program, n, args);
            verify_equal(want, got,
                         "contexts " + std::to_string(Contexts) + ", " + to_string(strategy) +
                             ", " + to_string(sw) + ", default then " +
                             std::to_string(default_then != 0) + ", tasks " + std::to_string(n));
          }
        }
      }
    }
  }
}

//! Fetch control and the deferral between fetch checks apply under switching as under termination
//! divergence: every kind of idle count, thresholds that keep warps computing with idle lanes,
//! deferrals of one and several visits, each pool strategy, immediate and deferred switching.
template <class Program, int Contexts>
void verify_fetch_control(const Program& program, task_id n, const outputs& want) {
  const std::vector<fetch_control> fetches = {fetch_control::any(), fetch_control::all(),
                                              fetch_control::ballot(8)};
  for (const auto strategy :
       {pool_strategy::hybrid, pool_strategy::private_pools, pool_strategy::local}) {
    for (const auto& fetch : fetches) {
      for (const int deferral : {0, 1, 5}) {
        for (const int every : {1, 4}) {
          if (small_run() && (deferral == 1 || every == 4 || strategy == pool_strategy::local)) {
            continue;
          }
          schedule_arguments args;
          args.strategy = strategy;
          args.chunk = strategy == pool_strategy::local ? 512 : 4;
          args.fetch = fetch;
          args.deferral = deferral;
          args.switching.switch_every = every;
          const auto got = run_switching<Program, Contexts>(program, n, args);
          verify_equal(want, got,
                       "fetch, contexts " + std::to_string(Contexts) + ", " + to_string(args) +
                           ", " + to_string(args.switching) + ", tasks " + std::to_string(n));
        }
      }
    }
  }
}

//! The wavefront baseline on `program`, counted, outputs poisoned first. Runs twice on the same
//! buffers: the second run must not see the first one's queues.
template <class Program>
outputs run_wavefront(const Program& program, task_id n, int* rounds = nullptr) {
  device_buffer<std::uint32_t> a(n), b(n), counts(n);
  switching_workloads::detail::wavefront<typename Program::context, Program::managed_branches> wave(
      n);
  using counted = counted_program<Program>;
  for (int run = 0; run < 2; ++run) {
    a.fill_bytes(0xff, nullptr);
    b.fill_bytes(0xff, nullptr);
    counts.fill_bytes(0, nullptr);
    wave.run(counted{with_outputs(program, a.data(), b.data()), counts.data()}, nullptr);
    MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  }
  if (rounds != nullptr) *rounds = wave.rounds();
  return {a.to_host(nullptr), b.to_host(nullptr), counts.to_host(nullptr)};
}

//! The Monte Carlo branch workload of the device tests.
kernels::montecarlo_branch_program montecarlo_branch_test_program() {
  kernels::montecarlo_branch_program p;
  p.probability = 0.15f;
  p.outer = 40;
  p.inner = 18;
  return p;
}

//! A context of 1 KB: 200 of them per warp cannot fit in any GPU's shared memory.
struct big_program {
  static constexpr int managed_branches = 1;
  struct context {
    float data[256];
  };
  __device__ context begin(task_id) const { return {}; }
  template <class Gate>
  __device__ bool step(context&, Gate& gate) const {
    (void)gate.take(branch<0>, false);
    return true;
  }
  __device__ void end(task_id, const context&) const {}
};

}  // namespace

TEST_CASE_TEMPLATE("one managed branch (Monte Carlo branch): exactly once, equal to vanilla", C,
                   std::integral_constant<int, 8>, std::integral_constant<int, 64>,
                   std::integral_constant<int, 160>) {
  const kernels::montecarlo_branch_program p = montecarlo_branch_test_program();
  for (const task_id n : {task_id{1}, task_id{37}, small_run() ? task_id{2001} : task_id{30011}}) {
    const auto want = run_vanilla(p, n);
    verify_all_variants<kernels::montecarlo_branch_program, C::value>(p, n, want);
  }
}

TEST_CASE_TEMPLATE("two managed branches, if/else with work on both paths", C,
                   std::integral_constant<int, 8>, std::integral_constant<int, 64>,
                   std::integral_constant<int, 160>) {
  two_branch_program p;
  for (const task_id n : {task_id{5}, small_run() ? task_id{2000} : task_id{20000}}) {
    const auto want = run_vanilla(p, n);
    verify_all_variants<two_branch_program, C::value>(p, n, want);
  }
}

TEST_CASE_TEMPLATE("fetch control and deferral under switching: exactly once, equal to vanilla", C,
                   std::integral_constant<int, 8>, std::integral_constant<int, 64>) {
  const kernels::montecarlo_branch_program mc = montecarlo_branch_test_program();
  two_branch_program two;
  for (const task_id n : {task_id{1}, task_id{33}, small_run() ? task_id{2001} : task_id{30011}}) {
    verify_fetch_control<kernels::montecarlo_branch_program, C::value>(mc, n, run_vanilla(mc, n));
    verify_fetch_control<two_branch_program, C::value>(two, n, run_vanilla(two, n));
  }
}

TEST_CASE("a pool that does not fit in shared memory is refused with the sizes") {
  try {
    scheduler<big_program, switching_policy<1024, 200>> sched(schedule_arguments{});
    FAIL("expected std::invalid_argument");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("does not fit in shared memory") != std::string::npos);
    CHECK(what.find("ContextsPerWarp") != std::string::npos);
  }
}

TEST_CASE("wavefront baseline, one managed branch (Monte Carlo branch): exactly once, equal") {
  for (const float probability : {0.0f, 0.15f, 1.0f}) {
    kernels::montecarlo_branch_program p = montecarlo_branch_test_program();
    p.probability = probability;
    // 1 and 37: one partial block; 30011: many blocks and a partial one.
    for (const task_id n :
         {task_id{1}, task_id{37}, small_run() ? task_id{2001} : task_id{30011}}) {
      int rounds = 0;
      const auto got = run_wavefront(p, n, &rounds);
      verify_equal(run_vanilla(p, n), got,
                   "wavefront, p " + std::to_string(probability) + ", tasks " + std::to_string(n));
      // Round 0 begins the tasks; every branch entry needs one round more; the last round
      // finds the queues empty. p = 0: nothing waits; p = 1: every one of 40 steps enters.
      if (probability == 0.0f) CHECK(rounds == 2);
      if (probability == 1.0f) CHECK(rounds == 2 + 40);
    }
  }
}

TEST_CASE("wavefront baseline, two managed branches, if/else with work on both paths") {
  two_branch_program p;
  for (const task_id n : {task_id{5}, task_id{257}, small_run() ? task_id{2000} : task_id{20000}}) {
    verify_equal(run_vanilla(p, n), run_wavefront(p, n), "wavefront, tasks " + std::to_string(n));
  }
}

TEST_CASE(
    "wavefront baseline through the runners: Monte Carlo bit-equal, ray caster in tolerance") {
  switching_workloads::montecarlo_branch_settings ms;
  ms.tasks = small_run() ? 1000 : 20000;
  ms.outer = 50;
  ms.inner = 40;
  switching_workloads::montecarlo_branch_runner mc(ms);
  for (const float probability : {0.01f, 0.5f}) {
    mc.set_probability(probability);
    const auto r = mc.verify_wavefront();
    INFO(r.detail);
    CHECK(r.passed);
    CHECK(r.missing == 0);
    CHECK(r.duplicated == 0);
    CHECK(mc.wavefront_rounds() > 2);
  }

  const int size = small_run() ? 32 : 96;
  switching_workloads::raycast_runner rc({size, size, 0.05f});
  for (const bool skip : {false, true}) {
    for (const int window : {1, 16}) {
      rc.set_skip_empty(skip);
      rc.set_march_window(window);
      rc.set_tile(8, 4);
      rc.set_center_first(window == 16);
      const auto r = rc.verify_wavefront(2, 0.001);  // the raycast sample's --verify tolerance
      INFO(r.tasks.detail);
      CHECK(r.tasks.passed);
      CHECK(r.tasks.missing == 0);
      CHECK(r.tasks.duplicated == 0);
    }
  }
}

TEST_CASE("expert split wavefront of the ray caster: every ray once, the image in tolerance") {
  const int sizes[][2] = {{1, 1}, {31, 31}, {33, 33}, {37, 29}};
  for (const auto& [width, height] : sizes) {
    switching_workloads::raycast_runner rc({width, height, 0.05f});
    for (const bool skip : {false, true}) {
      for (const int window : {1, 16}) {
        rc.set_skip_empty(skip);
        rc.set_march_window(window);
        rc.set_center_first(window == 16);
        // Twice on the same buffers: the second run must not see the first one's queues.
        for (int run = 0; run < 2; ++run) {
          const auto r = rc.verify_expert_wavefront(2, 0.001);  // the sample's --verify tolerance
          INFO(width << "x" << height << (skip ? " skip" : " noskip") << " window " << window
                     << " run " << run << ": " << r.tasks.missing << " missing, "
                     << r.tasks.duplicated << " duplicated, " << r.tasks.mismatched
                     << " over tolerance; " << r.tasks.detail);
          CHECK(r.tasks.missing == 0);
          CHECK(r.tasks.duplicated == 0);
          CHECK(r.tasks.passed);
        }
      }
    }
  }
  switching_workloads::raycast_runner rc({37, 29, 0.05f});
  CHECK(rc.time_expert_wavefront({0, 1}).median_ms > 0);
}

TEST_CASE(
    "the windowed-vanilla search tries every block size, order and window and keeps the settings") {
  switching_workloads::raycast_runner rc({64, 64, 0.05f});
  rc.set_march_window(3);
  rc.set_tile(16, 16);
  const auto best = rc.time_vanilla_best({1, 8}, {0, 1});
  // Blocks of 256 and 128 x rows, 8x4, 16x16, expensive tiles first x two windows.
  CHECK(best.tried.size() == 2 * 4 * 2);
  CHECK(best.tried.front().first == "rows w1");
  CHECK(best.tried.back().first == "center_first w8 b128");
  double fastest = 1e300;
  std::string winner;
  for (const auto& [name, ms] : best.tried) {
    if (ms < fastest) {
      fastest = ms;
      winner = name;
    }
  }
  // The winner of the search, timed afresh (its search time sits low by the choice itself).
  CHECK(winner == best.label());
  CHECK((best.block_threads == 256 || best.block_threads == 128));
  CHECK(best.stats.median_ms > 0);
  CHECK((best.march_window == 1 || best.march_window == 8));
  CHECK(rc.settings().march_window == 3);
  CHECK(rc.settings().tile_width == 16);
  CHECK_FALSE(rc.settings().center_first);
  CHECK_THROWS_WITH_AS(rc.time_vanilla_best({}, {0, 1}), doctest::Contains("windows"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(rc.time_vanilla_best({0}, {0, 1}), doctest::Contains("window"),
                       std::invalid_argument);
}

TEST_CASE(
    "the ray caster's ideal: the counted run renders vanilla's image; skipping saves samples") {
  const int size = small_run() ? 32 : 96;
  switching_workloads::raycast_runner rc({size, size, 0.05f});
  rc.set_march_window(16);  // the counting run takes one sample per iteration whatever the window
  rc.set_tile(8, 4);
  const auto full = rc.measure_ideal({0, 1});
  rc.set_skip_empty(true);
  const auto skipped = rc.measure_ideal({0, 1});
  for (const auto* i : {&full, &skipped}) {
    CHECK(i->image_matches);
    CHECK(i->rays == static_cast<std::uint64_t>(size) * size);
    CHECK(i->samples >= i->rays);  // a miss takes one sample
    CHECK(i->shades > 0);
    // The longest ray alone: one of the heaviest, with no more work than the whole image's.
    CHECK(i->longest_ray_ms > 0);
    CHECK(i->longest_ray_samples >= 1);
    CHECK(i->longest_ray_samples <= i->samples);
    CHECK(i->longest_ray_shades <= i->shades);
    // The per-sample and per-shade times are differences of runs of a few microseconds at this
    // size: they belong to the benchmark (bench_switching rc_base/.../ideal), not to a test that
    // may share the GPU with others (ctest -j).
  }
  CHECK(skipped.samples < full.samples);
  CHECK(skipped.shades == full.shades);  // skipped samples cannot cross a surface
  rc.set_step_size(0.025f);
  const auto fine = rc.measure_ideal({0, 1});
  CHECK(fine.image_matches);
  CHECK(fine.samples > skipped.samples);
}

TEST_CASE_TEMPLATE("a march window in the Monte Carlo step changes no output", C,
                   std::integral_constant<int, 8>, std::integral_constant<int, 64>) {
  kernels::montecarlo_branch_program p = montecarlo_branch_test_program();
  const task_id n = small_run() ? 2001 : 30011;
  const auto want = run_vanilla(p, n);  // window 1: one outer iteration per step
  for (const std::uint32_t window : {2u, 7u, 64u}) {
    p.march_window = window;
    const auto vanilla = run_vanilla(p, n);
    CHECK(vanilla.a == want.a);
    CHECK(vanilla.b == want.b);
    verify_equal(want, run_wavefront(p, n), "wavefront, window " + std::to_string(window));
    for (const int every : {1, 4}) {
      if (small_run() && every != 1) continue;
      schedule_arguments args;
      args.chunk = 16;
      args.switching.switch_every = every;
      verify_equal(want, run_switching<kernels::montecarlo_branch_program, C::value>(p, n, args),
                   "switching, window " + std::to_string(window) + ", every " +
                       std::to_string(every) + ", contexts " + std::to_string(C::value));
    }
  }
}
