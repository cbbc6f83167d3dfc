// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device tests of measure_prize(): the step statistics equal a CPU reference, the scheduled run
// is checked exactly once against the direct run's outputs (float totals within a tolerance when
// told), and every time is measured; the event timer's turns.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "microsched/check/prize.cuh"
#include "microsched/device_buffer.hpp"
#include "microsched/schedule/calibration_file.hpp"

using namespace microsched;

namespace {

//! Task t runs steps(t) = 1 + (t * 7919) % 97 steps and writes its count and a checksum.
struct known_steps_program {
  struct context {
    std::uint32_t left = 0;
    std::uint32_t hash = 0;
  };
  std::uint32_t* out = nullptr;
  __host__ __device__ static std::uint32_t steps(task_id t) {
    return 1u + static_cast<std::uint32_t>((t * 7919u) % 97u);
  }
  __device__ context begin(task_id t) const { return {steps(t), static_cast<std::uint32_t>(t)}; }
  __device__ bool step(context& c) const {
    c.hash = c.hash * 1664525u + 1013904223u;
    return --c.left == 0;
  }
  __device__ void end(task_id t, const context& c) const { out[t] = c.hash; }
};

}  // namespace

TEST_CASE("measure_prize: step statistics, exactly once, equal outputs, three times") {
  for (const task_id n : {task_id{1}, task_id{31}, task_id{33}, (task_id{1} << 20) + 7}) {
    device_buffer<std::uint32_t> out(n);
    const known_steps_program program{out.data()};
    const prize_report r =
        measure_prize(program, n, {{out.data(), n * sizeof(std::uint32_t)}}, {}, {1, 3});
    CAPTURE(n);
    CAPTURE(r.summary());
    double sum = 0, warp_sum = 0;
    std::uint64_t max = 0, warps = 0;
    for (task_id w = 0; w < n; w += 32) {
      std::uint64_t warp_max = 0;
      for (task_id t = w; t < std::min(n, w + 32); ++t) {
        sum += known_steps_program::steps(t);
        warp_max = std::max<std::uint64_t>(warp_max, known_steps_program::steps(t));
      }
      max = std::max(max, warp_max);
      warp_sum += static_cast<double>(warp_max);
      ++warps;
    }
    CHECK(r.steps_mean == doctest::Approx(sum / static_cast<double>(n)));
    CHECK(r.steps_max == max);
    CHECK(r.warp_max_mean == doctest::Approx(warp_sum / static_cast<double>(warps)));
    CHECK(r.exactly_once());
    CHECK(r.outputs_equal());
    CHECK(r.direct.median_ms > 0);
    CHECK(r.scheduled.median_ms > 0);
    CHECK(r.floor.median_ms > 0);
    CHECK(r.longest_alone.median_ms > 0);
    REQUIRE(r.longest_task < n);
    CHECK(known_steps_program::steps(r.longest_task) == r.steps_max);
    bool first_longest = true;  // the report names the first task with the most steps
    for (task_id t = 0; t < r.longest_task; ++t) {
      first_longest = first_longest && known_steps_program::steps(t) < r.steps_max;
    }
    CHECK(first_longest);
    CHECK(r.bound_ms() == std::max(r.floor.median_ms, r.longest_alone.median_ms));
    CHECK(r.schedule.find("automatic") != std::string::npos);
  }
}

TEST_CASE("the guide's prize call and automatic schedule") {
  const task_id n = 1 << 16;
  device_buffer<std::uint32_t> out(n);
  const known_steps_program program{out.data()};
  // example-begin prize-call
  // Direct (vanilla), scheduled (automatic) and the uniform-work floor, on the user's data:
  const microsched::prize_report r = microsched::measure_prize(
      program, n, {{out.data(), n * sizeof(std::uint32_t)}});  // the buffers end() writes
  std::printf("%s\n", r.summary().c_str());
  // r.speedup(): direct / scheduled; r.prize(): direct / floor; r.of_floor(): floor / scheduled
  // example-end prize-call
  CHECK(r.exactly_once());
  CHECK(r.outputs_equal());

  // example-begin automatic-schedule
  microsched::scheduler<known_steps_program> sched;  // schedule_arguments{}: automatic
  for (int frame = 0; frame < 10; ++frame) {
    sched.run(program, n);  // the first runs time the candidates, then the fastest runs
  }
  std::printf("%s\n", sched.report(n).c_str());  // what it chose and why
  // Keep the choices for the next process (optional):
  microsched::save_calibrations("calibration.txt");
  // ... and at the start of the next one: a bad file loads nothing and says why.
  const microsched::calibration_load loaded = microsched::load_calibrations("calibration.txt");
  if (!loaded.problem.empty()) std::fprintf(stderr, "%s\n", loaded.problem.c_str());
  // example-end automatic-schedule
  sched.calibrate(program, n);  // ends a calibration that a drift may have restarted
  CHECK(sched.report(n).find("chose") != std::string::npos);
  CHECK(loaded.problem.empty());
  std::remove("calibration.txt");
}

TEST_CASE("the guide's prize checks: output regions, exactly once, equal outputs") {
  const task_id n = (1 << 16) + 5;
  device_buffer<std::uint32_t> out(n);
  const known_steps_program program{out.data()};
  // example-begin prize-checks
  // Every buffer end() writes, as {device pointer, bytes}: each is poisoned before a checked
  // run and compared with the direct run's. On return it holds a scheduled run's results.
  const std::vector<microsched::output_region> outputs = {{out.data(), out.bytes()}};
  const microsched::prize_report r = microsched::measure_prize(program, n, outputs);
  if (!r.exactly_once()) {
    std::fprintf(stderr, "%llu tasks never ended, %llu ended more than once\n",
                 static_cast<unsigned long long>(r.missing),
                 static_cast<unsigned long long>(r.duplicated));
  }
  if (!r.outputs_equal()) {
    std::fprintf(stderr, "%llu output bytes differ from the direct run's\n",
                 static_cast<unsigned long long>(r.differing_bytes));
  }
  // example-end prize-checks
  CHECK(r.exactly_once());
  CHECK(r.outputs_equal());
  CHECK(r.missing == 0);
  CHECK(r.duplicated == 0);
  std::vector<std::uint32_t> want(n);
  for (task_id t = 0; t < n; ++t) {
    std::uint32_t hash = static_cast<std::uint32_t>(t);
    for (std::uint32_t s = 0; s < known_steps_program::steps(t); ++s) {
      hash = hash * 1664525u + 1013904223u;
    }
    want[t] = hash;
  }
  CHECK(out.to_host() == want);  // a scheduled run's results are left in the outputs
}

TEST_CASE("measure_prize refuses zero tasks and empty output regions") {
  device_buffer<std::uint32_t> out(4);
  const known_steps_program program{out.data()};
  CHECK_THROWS_AS((void)measure_prize(program, 0, {{out.data(), 16}}), std::invalid_argument);
  CHECK_THROWS_AS((void)measure_prize(program, 4, {{nullptr, 16}}), std::invalid_argument);
}

TEST_CASE("event_timer times two launches in turns, each with its own statistics") {
  device_buffer<std::uint8_t> bytes(std::size_t{1} << 20);
  std::string order;
  const auto fill = [&](char name, int value) {
    return [&bytes, &order, name, value](cudaStream_t s) {
      order += name;
      MICROSCHED_CUDA_TRY(cudaMemsetAsync(bytes.data(), value, bytes.size(), s));
    };
  };
  event_timer timer;
  const auto [a, b] = timer.time_in_turns(fill('a', 1), fill('b', 2), {2, 5});
  CHECK(order == "ababababababab");  // two warm-up turns, then five timed
  for (const timing_stats& t : {a, b}) {
    CHECK(t.repetitions == 5);
    CHECK(t.min_ms > 0);
    CHECK(t.min_ms <= t.median_ms);
    CHECK(t.median_ms <= t.max_ms);
  }
  CHECK_THROWS_AS((void)timer.time_in_turns(fill('a', 1), fill('b', 2), {1, 0}),
                  std::invalid_argument);
}

namespace {
//! Each task advances its own generator state in memory, as a photon code's per-task random
//! state does: runs that do not start from the same state give other outputs.
struct in_place_state_program {
  struct context {
    std::uint32_t state = 0;
    std::uint32_t steps = 0;
  };
  std::uint32_t* state = nullptr;  // read by begin, written back by end
  std::uint32_t* out = nullptr;
  __device__ context begin(task_id t) const { return {state[t], 0}; }
  __device__ bool step(context& c) const {
    c.state = c.state * 1664525u + 1013904223u;
    return ++c.steps >= 4 + (c.state >> 28);
  }
  __device__ void end(task_id t, const context& c) const {
    state[t] = c.state;
    out[t] = c.steps;
  }
};
}  // namespace

TEST_CASE("measure_prize restores the buffers a program updates in place") {
  const task_id n = 4099;
  device_buffer<std::uint32_t> state(n), out(n);
  std::vector<std::uint32_t> seeds(n);
  for (task_id t = 0; t < n; ++t) seeds[t] = static_cast<std::uint32_t>(t * 2654435761u);
  state.upload(seeds);
  const in_place_state_program program{state.data(), out.data()};
  const microsched::prize_report kept = microsched::measure_prize(
      program, n, {{out.data(), out.bytes()}, {state.data(), state.bytes(), true}});
  CHECK(kept.exactly_once());
  CHECK(kept.outputs_equal());
  CHECK(state.to_host() == seeds);  // put back on return
  const microsched::prize_report drifted =
      microsched::measure_prize(program, n, {{out.data(), out.bytes()}});
  CHECK_FALSE(drifted.outputs_equal());  // each run starts from the last one's state
  CHECK(drifted.summary().find("output_region{..., true}") != std::string::npos);
}

namespace {
//! Each task adds its steps' values into a few float totals with atomics, as a photon code's
//! tally does: the last bits of a total follow the order in which tasks end.
struct float_tally_program {
  struct context {
    float sum = 0;
    std::uint32_t left = 0;
  };
  float* totals = nullptr;  // 8 totals, added to from end()
  __device__ context begin(task_id t) const {
    return {0.0f, 1u + static_cast<std::uint32_t>((t * 7919u) % 61u)};
  }
  __device__ bool step(context& c) const {
    c.sum += 1.0f / static_cast<float>(c.left + 3);
    return --c.left == 0;
  }
  __device__ void end(task_id t, const context& c) const { atomicAdd(&totals[t % 8], c.sum); }
};
}  // namespace

TEST_CASE("measure_prize compares float totals within a tolerance when told") {
  const task_id n = (task_id{1} << 16) + 3;
  device_buffer<float> totals(8);
  totals.fill_bytes(0);
  const float_tally_program program{totals.data()};
  output_region tally{totals.data(), totals.bytes(), true};
  tally.values = output_region::compare_as::floats;
  tally.tolerance = 1e-4;
  const microsched::prize_report r = microsched::measure_prize(program, n, {tally});
  INFO(r.summary());
  CHECK(r.exactly_once());
  CHECK(r.outputs_equal());
  CHECK(totals.to_host() == std::vector<float>(8, 0.0f));  // put back on return
  tally.bytes = 6;                                         // not a whole number of floats
  CHECK_THROWS_AS((void)microsched::measure_prize(program, n, {tally}), std::invalid_argument);
}
