// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device tests of the automatic schedule's first calls: a large first call cut into slices (each
// slice a candidate, the rest the fastest) and every later call run each task exactly once, with
// the steps each task must take; so does every automatic candidate as a fixed schedule, at sizes
// around a warp and past 2^20.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "microsched/check/counted_program.cuh"
#include "microsched/device_buffer.hpp"
#include "microsched/schedule/calibration.hpp"
#include "microsched/scheduler.cuh"

using namespace microsched;

namespace {

//! Task t takes length(t) steps (a hash, so lengths mix within warps), at most `longest`; end()
//! writes the steps it took. The tests run it counted (counted_program) to see each task end once.
template <std::uint32_t Longest>
struct hashed_lengths {
  struct context {
    std::uint32_t steps = 0;
    std::uint32_t length = 0;
    float value = 0;
  };
  std::uint32_t* steps = nullptr;
  std::uint32_t longest = Longest;

  __host__ __device__ std::uint32_t length(task_id t) const {
    std::uint32_t h = static_cast<std::uint32_t>(t) * 2654435761u;
    h ^= h >> 15;
    return 1 + h % longest;
  }
  __device__ context begin(task_id t) const { return {0, length(t), static_cast<float>(t & 7)}; }
  __device__ bool step(context& c) const {
    c.value = fmaf(c.value, 0.999f, 1.0f);
    return ++c.steps >= c.length;
  }
  __device__ void end(task_id t, const context& c) const {
    steps[t] = c.steps + (c.value < 0 ? 1 : 0);  // keeps the arithmetic alive
  }
};

//! Work of few long tasks: task t takes 1 + t % 4 steps, but every 64th task (and task 0)
//! takes `longest`; set per call, it makes a call short or long with the same tasks.
struct sparse_lengths {
  struct context {
    std::uint32_t steps = 0;
    std::uint32_t length = 0;
    float value = 0;
  };
  std::uint32_t* steps = nullptr;
  std::uint32_t longest = 4;

  __host__ __device__ std::uint32_t length(task_id t) const {
    return t % 64 == 0 ? longest : 1 + static_cast<std::uint32_t>(t % 4);
  }
  __device__ context begin(task_id t) const { return {0, length(t), 1.0f}; }
  __device__ bool step(context& c) const {
    c.value = fmaf(c.value, 0.999f, 1.0f);
    return ++c.steps >= c.length;
  }
  __device__ void end(task_id t, const context& c) const {
    steps[t] = c.steps + (c.value < 0 ? 1 : 0);
  }
};

//! Short tasks (1-4 steps) over K floats of state: K = 16 holds about 40 registers in the direct
//! kernel, where the signalled kernel's sampled path costs whole blocks per SM (sm_90, 256
//! threads).
template <int K>
struct wide_state {
  struct context {
    std::uint32_t steps = 0;
    std::uint32_t length = 0;
    float v[K];
  };
  std::uint32_t* steps = nullptr;

  __host__ __device__ std::uint32_t length(task_id t) const {
    return 1 + static_cast<std::uint32_t>(t % 4);
  }
  __device__ context begin(task_id t) const {
    context c;
    c.length = length(t);
    for (int k = 0; k < K; ++k) c.v[k] = static_cast<float>((t + k) & 15);
    return c;
  }
  __device__ bool step(context& c) const {
    float carry = c.v[K - 1];
    for (int k = 0; k < K; ++k) {
      const float x = c.v[k];
      c.v[k] = fmaf(x, 0.999f, carry);
      carry = x;
    }
    return ++c.steps >= c.length;
  }
  __device__ void end(task_id t, const context& c) const {
    float sum = 0;
    for (int k = 0; k < K; ++k) sum += c.v[k];
    steps[t] = c.steps + (sum < 0 ? 1 : 0);  // keeps the state alive
  }
};

//! Runs `program` once on `n` tasks (its outputs poisoned first) and checks that each task ended
//! once, with the steps its length says.
template <class Program>
void check_call(scheduler<counted_program<Program>>& sched, const Program& program, task_id n,
                task_counters& visits, device_buffer<std::uint32_t>& steps) {
  visits.reset();
  steps.fill_bytes(0xff);  // poison: a task that never ends leaves it
  sched.run({program, visits.data()}, n);
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  const exactly_once_count once = visits.check();
  CHECK(once.missing == 0);
  CHECK(once.duplicated == 0);
  if (n == 0) return;
  std::vector<std::uint32_t> s(n);
  MICROSCHED_CUDA_TRY(cudaMemcpy(s.data(), steps.data(), n * 4, cudaMemcpyDeviceToHost));
  std::size_t wrong_steps = 0;
  for (task_id t = 0; t < n; ++t) wrong_steps += s[t] != program.length(t);
  CHECK(wrong_steps == 0);
}

template <class Program>
void verify_runs(scheduler<counted_program<Program>>& sched, task_id n, int runs) {
  task_counters visits(n);
  device_buffer<std::uint32_t> steps(n > 0 ? n : 1);
  for (int r = 0; r < runs; ++r) {
    CAPTURE(r);
    CAPTURE(n);
    check_call(sched, Program{steps.data()}, n, visits, steps);
  }
}

struct no_cache {
  no_cache() {
    ::setenv("MICROSCHED_CACHE", "off", 1);  // tests never read or write the user's cache
    detail::forget_calibrations();
  }
  ~no_cache() { detail::forget_calibrations(); }
};

}  // namespace

//! Under compute-sanitizer (MICROSCHED_SANITIZE_SMALL, scripts/gpu-check) the long calls take
//! minutes: the slices run with short tasks once, and their report is not checked.
static bool sanitizing() {
  return std::getenv("MICROSCHED_SANITIZE_SMALL") != nullptr;
}

//! `calls` calls of `n` tasks, short ones and the long ones `long_call(call)` names, each checked
//! (check_call); then, outside a sanitizer, that the scheduler followed them.
template <class LongCall>
static void follow_stretches(scheduler<counted_program<sparse_lengths>>& sched, task_id n,
                             device_buffer<std::uint32_t>& steps, int calls, LongCall long_call) {
  task_counters visits(n);
  for (int call = 0; call < calls; ++call) {
    CAPTURE(call);
    const sparse_lengths program{steps.data(),
                                 long_call(call) ? (sanitizing() ? 100u : 200000u) : 4u};
    check_call(sched, program, n, visits, steps);
  }
  if (sanitizing()) return;
  const std::string report = sched.report(n);
  CAPTURE(report);
  CHECK(report.find("followed the work") != std::string::npos);
  CHECK(report.find("followed the work: 0 calls") == std::string::npos);
}

TEST_CASE("a long first call runs in slices, each task once; later calls check its choice") {
  no_cache guard;
  const task_id n = (task_id{1} << 20) + 7;
  if (sanitizing()) {
    scheduler<counted_program<hashed_lengths<100>>> sched;
    verify_runs(sched, n, 1);
    return;
  }
  using program = hashed_lengths<65536>;  // a first call of several ms: the counted slice
  scheduler<counted_program<program>> sched;
  verify_runs(sched, n, 3);
  const std::string report = sched.report(n);
  CAPTURE(report);
  CHECK(report.find("first call: a counted 1/64 slice ran direct") != std::string::npos);
  CHECK(report.find("the rest ran private_pools") != std::string::npos);  // most tasks are long
}

TEST_CASE("a short first call of many tasks runs its first slice direct, then the rest") {
  no_cache guard;
  using program = hashed_lengths<2>;
  scheduler<counted_program<program>> sched;
  const task_id n = (task_id{1} << 20) + 7;
  verify_runs(sched, n, 2);
  if (sanitizing()) return;
  CHECK(sched.report(n).find("a short call: the rest ran direct") != std::string::npos);
}

TEST_CASE("the automatic schedule and every candidate run each task once at every size") {
  no_cache guard;
  using program = hashed_lengths<300>;
  for (const task_id n : {task_id{0}, task_id{1}, task_id{31}, task_id{33}, task_id{4099}}) {
    scheduler<counted_program<program>> automatic;
    verify_runs(automatic, n, 30);  // through the whole calibration
    for (const schedule_arguments& s : automatic_candidates(false)) {
      CAPTURE(to_string(s));
      scheduler<counted_program<program>> fixed(s);
      verify_runs(fixed, n, 1);
    }
  }
}

TEST_CASE("calls that jump between short and long work run each task once") {
  no_cache guard;
  const task_id n = (task_id{1} << 20) + 7;
  const int calls = sanitizing() ? 8 : 60;  // drifts, restarts and checks of the choice
  // Task lengths set per call: work that jumps between short and long calls, as an animation's.
  using changing_lengths = hashed_lengths<2>;
  scheduler<counted_program<changing_lengths>> sched;
  task_counters visits(n);
  device_buffer<std::uint32_t> steps(n);
  for (int call = 0; call < calls; ++call) {
    CAPTURE(call);
    // Stretches of five long calls among short ones; the first is short.
    const bool long_call = call % 20 >= 12 && call % 20 < 17;
    const changing_lengths program{steps.data(), long_call ? (sanitizing() ? 64u : 32768u) : 2u};
    check_call(sched, program, n, visits, steps);
  }
}

TEST_CASE("a size class of short calls follows long ones; each task runs once in every call") {
  no_cache guard;
  for (const task_id n : {task_id{1}, task_id{31}, task_id{33}, (task_id{1} << 20) + 7}) {
    CAPTURE(n);
    scheduler<counted_program<sparse_lengths>> sched;
    device_buffer<std::uint32_t> steps(n);
    // Short calls, then stretches of three long ones (a long task of 0.3-1 ms).
    follow_stretches(sched, n, steps, sanitizing() ? 10 : 24,
                     [](int call) { return call >= 4 && call % 6 < 3; });
  }
}

TEST_CASE("a scheduler that follows a larger size class after a first runs each task once") {
  no_cache guard;
  // The second size class needs a larger survivor queue than the first one's budgeted runs took.
  const task_id sizes[] = {(task_id{1} << 20) + 7, (task_id{1} << 21) + 7};
  scheduler<counted_program<sparse_lengths>> sched;
  device_buffer<std::uint32_t> steps(sizes[1]);
  const int calls = sanitizing() ? 8 : 16;
  for (const task_id n : sizes) {
    CAPTURE(n);
    // Short calls, then pairs of long ones.
    follow_stretches(sched, n, steps, calls, [](int call) { return call >= 4 && call % 4 < 2; });
  }
}

TEST_CASE("a scheduler destroyed while its following loads its kernels, and one that follows") {
  no_cache guard;
  const task_id n = (task_id{1} << 20) + 7;
  device_buffer<std::uint32_t> steps(n);
  const sparse_lengths short_work{steps.data(), 4};
  // The following starts on a short call and loads on a thread of its own: a scheduler
  // destroyed at once waits for that thread, and a second scheduler of the same program follows.
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    task_counters visits(n);
    scheduler<counted_program<sparse_lengths>> sched;
    for (int call = 0; call < 3; ++call) check_call(sched, short_work, n, visits, steps);
  }
  scheduler<sparse_lengths> sched;
  for (int call = 0; call < 3; ++call) sched.run(short_work, n);  // no synchronise before the end
}

TEST_CASE("calibrate() on a size class that follows its calls settles when the work drifted") {
  no_cache guard;
  const task_id n = 4099;
  scheduler<sparse_lengths> sched;
  device_buffer<std::uint32_t> steps(n);
  const sparse_lengths short_work{steps.data(), 4};
  for (int call = 0; call < 6; ++call) sched.run(short_work, n);  // decided, then following
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  // Longer work: calibrate()'s check restarts the calibration, whose runs must then reach it.
  const sparse_lengths long_work{steps.data(), sanitizing() ? 100u : 20000u};
  sched.calibrate(long_work, n);
  std::vector<std::uint32_t> s(n);
  MICROSCHED_CUDA_TRY(cudaMemcpy(s.data(), steps.data(), n * 4, cudaMemcpyDeviceToHost));
  std::size_t wrong_steps = 0;
  for (task_id t = 0; t < n; ++t) wrong_steps += s[t] != long_work.length(t);
  CHECK(wrong_steps == 0);
  CHECK(sched.report(n).find("chose") != std::string::npos);
}

TEST_CASE("the following stops where the signalled kernel fits fewer blocks per SM than direct") {
  no_cache guard;
  using program = wide_state<16>;
  using counted = counted_program<program>;
  const int direct_fit =
      query_resources(direct_kernel_one_per_thread<counted, direct_block_threads>,
                      direct_block_threads)
          .max_blocks_per_sm;
  const int signalled_fit =
      query_resources(direct_kernel_signalled<counted, direct_block_threads>, direct_block_threads)
          .max_blocks_per_sm;
  MESSAGE("blocks per SM: direct ", direct_fit, ", signalled ", signalled_fit);
  const task_id n = (task_id{1} << 20) + 7;
  scheduler<counted> sched;
  task_counters visits(n);
  device_buffer<std::uint32_t> steps(n);
  for (int call = 0; call < 12; ++call) {  // short calls: direct holds them and follows them
    CAPTURE(call);
    check_call(sched, program{steps.data()}, n, visits, steps);
  }
  if (sanitizing()) return;  // calls this slow calibrate instead of being followed
  const std::string report = sched.report(n);
  CAPTURE(report);
  const bool stopped =
      report.find("following stopped: the signalled direct kernel fits") != std::string::npos;
  CHECK(stopped == (signalled_fit < direct_fit));
}
