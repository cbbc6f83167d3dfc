// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device tests of the automatic switching schedule (label gpu): every form of its candidate list
// (direct forms at each march window and task order, switching forms) runs each task exactly once
// with outputs equal to vanilla's (Monte Carlo bit for bit, the ray caster within the raycast
// sample's tolerance), at 1, 31 and 33 tasks, an odd image and a larger size; the schedule decides,
// and its chosen form then runs each task once; a choice saved to a calibration file starts a
// later scheduler decided, and its choice runs each task once.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "baselines/vanilla.cuh"
#include "microsched/automatic_switching.cuh"
#include "microsched/check/counted_program.cuh"
#include "microsched/device_buffer.hpp"
#include "microsched/schedule/automatic_schedule.hpp"
#include "microsched/schedule/calibration_file.hpp"
#include "microsched/switching/divergent_program.cuh"
#include "montecarlo_branch/montecarlo_branch_program.cuh"
#include "switching_workloads.hpp"

using namespace microsched;

namespace {

//! Under compute-sanitizer (MICROSCHED_SANITIZE_SMALL set) the larger cases are left out.
bool small_run() {
  return std::getenv("MICROSCHED_SANITIZE_SMALL") != nullptr;
}

void check_passed(const std::vector<switching_workloads::form_check>& checks, std::size_t forms) {
  CHECK(checks.size() == forms);
  for (const auto& c : checks) {
    INFO(c.form, ": ", c.report.detail);
    CHECK(c.report.passed);
    CHECK(c.report.missing == 0);
    CHECK(c.report.duplicated == 0);
  }
}

}  // namespace

TEST_CASE("every form of the default's list: Monte Carlo tasks once, sums equal to vanilla") {
  std::vector<std::uint64_t> sizes{1, 31, 33};
  if (!small_run()) sizes.push_back(4097);
  for (const std::uint64_t n : sizes) {
    switching_workloads::montecarlo_branch_settings s;
    s.tasks = n;
    s.outer = 60;
    s.inner = 40;
    s.probability = 0.05f;
    switching_workloads::montecarlo_branch_runner mc(s);
    CAPTURE(n);
    // 3 direct march windows x 2 direct forms + 2 switching march windows x 2 schedules.
    check_passed(mc.verify_forms(), 10);
  }
}

TEST_CASE("every form of the default's list: rays once, images within tolerance of vanilla") {
  struct size {
    int w, h;
  };
  std::vector<size> sizes{{1, 1}, {31, 1}, {33, 33}, {37, 29}};
  if (!small_run()) sizes.push_back({96, 64});
  for (const auto& sz : sizes) {
    for (const bool skip : {false, true}) {
      if (small_run() && !skip) continue;
      switching_workloads::raycast_runner rc({sz.w, sz.h, 0.05f});
      rc.set_skip_empty(skip);
      CAPTURE(sz.w);
      CAPTURE(sz.h);
      CAPTURE(skip);
      // Orders: rows and expensive-first always, 8x4 where it divides, 16x16 where it divides.
      const std::size_t orders =
          2 + (sz.w % 8 == 0 && sz.h % 4 == 0 ? 1 : 0) + (sz.w % 16 == 0 && sz.h % 16 == 0 ? 1 : 0);
      check_passed(rc.verify_forms(2, 0.001), orders * (3 * 2 + 2 * 2));
    }
  }
}

TEST_CASE("the automatic switching schedule decides, and its choice runs each task once") {
  kernels::montecarlo_branch_program p;
  p.outer = 60;
  p.inner = 40;
  p.probability = 0.05f;
  for (const task_id n : {task_id{1}, task_id{33}, small_run() ? task_id{300} : task_id{5000}}) {
    device_buffer<std::uint32_t> sum(n), entered(n), want_sum(n), want_entered(n), counts(n);
    p.sum_out = want_sum.data();
    p.entered_out = want_entered.data();
    baselines::run_vanilla(switching::divergent_program<kernels::montecarlo_branch_program>{p}, n,
                           nullptr);
    p.sum_out = sum.data();
    p.entered_out = entered.data();
    using counted = counted_program<kernels::montecarlo_branch_program>;
    switching::automatic_switching<counted, switching_policy<128, 64>> automatic;
    CHECK(!automatic.decided());
    CHECK_THROWS_AS((void)automatic.choice(), std::logic_error);
    const counted program{p, counts.data()};
    automatic.calibrate(program, n);
    REQUIRE(automatic.decided());
    INFO(automatic.report());
    CHECK(automatic.calibration_ms() > 0);
    counts.fill_bytes(0, nullptr);
    sum.fill_bytes(0xff, nullptr);
    automatic.run(program, n);
    const auto c = counts.to_host(nullptr);
    for (task_id t = 0; t < n; ++t) REQUIRE(c[t] == 1);
    CHECK(sum.to_host(nullptr) == want_sum.to_host(nullptr));
    CHECK(entered.to_host(nullptr) == want_entered.to_host(nullptr));
  }
}

TEST_CASE("the automatic switching schedule keeps one choice per size class") {
  kernels::montecarlo_branch_program p;
  p.outer = 60;
  p.inner = 40;
  p.probability = 0.05f;
  const task_id small = 300;
  const task_id large = small_run() ? 1000 : 5000;  // another size class
  device_buffer<std::uint32_t> sum(large), entered(large);
  p.sum_out = sum.data();
  p.entered_out = entered.data();
  switching::automatic_switching<kernels::montecarlo_branch_program, switching_policy<128, 64>>
      automatic;
  automatic.calibrate(p, small);
  REQUIRE(automatic.decided());
  const double small_cost = automatic.calibration_ms();
  automatic.run(p, large);  // a new size class: its choice starts
  CHECK(!automatic.decided());
  automatic.calibrate(p, large);
  REQUIRE(automatic.decided());
  automatic.run(p, small + 7);  // the first size class again, another count: decided, no timing
  CHECK(automatic.decided());
  CHECK(automatic.calibration_ms() == small_cost);
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
}

TEST_CASE("a choice saved to a calibration file starts a later scheduler decided") {
  kernels::montecarlo_branch_program p;
  p.outer = 60;
  p.inner = 40;
  p.probability = 0.05f;
  const task_id n = small_run() ? 300 : 5000;
  device_buffer<std::uint32_t> sum(n), entered(n), want_sum(n), want_entered(n), counts(n);
  p.sum_out = want_sum.data();
  p.entered_out = want_entered.data();
  baselines::run_vanilla(switching::divergent_program<kernels::montecarlo_branch_program>{p}, n,
                         nullptr);
  p.sum_out = sum.data();
  p.entered_out = entered.data();
  using counted = counted_program<kernels::montecarlo_branch_program>;
  using automatic_t = switching::automatic_switching<counted, switching_policy<128, 64>>;
  const counted program{p, counts.data()};
  detail::forget_calibrations();
  const auto file = std::filesystem::temp_directory_path() / "microsched_test_switching_cache";
  std::string chosen;
  {
    automatic_t first;  // the earlier process
    first.calibrate(program, n);
    REQUIRE(first.decided());
    CHECK_FALSE(first.from_cache());
    chosen = switching::form_key(first.choice());
    save_calibrations(file);
  }
  detail::forget_calibrations();
  const calibration_load loaded = load_calibrations(file);
  INFO(loaded.problem);
  REQUIRE(loaded.loaded >= 1);
  automatic_t later;
  counts.fill_bytes(0, nullptr);
  sum.fill_bytes(0xff, nullptr);
  later.run(program, n);
  REQUIRE(later.decided());
  CHECK(later.from_cache());
  CHECK(later.calibration_ms() == 0);
  CHECK(switching::form_key(later.choice()) == chosen);
  CHECK(later.report().find("chosen by an earlier process") != std::string::npos);
  CHECK_THROWS_AS((void)later.best_direct(), std::logic_error);
  const auto c = counts.to_host(nullptr);
  for (task_id t = 0; t < n; ++t) REQUIRE(c[t] == 1);
  CHECK(sum.to_host(nullptr) == want_sum.to_host(nullptr));
  CHECK(entered.to_host(nullptr) == want_entered.to_host(nullptr));
  // A harness that asks for no cache chooses again.
  switching::branch_form_options here;
  here.cache = false;
  automatic_t uncached(here);
  uncached.run(program, n);
  CHECK_FALSE(uncached.decided());
  std::filesystem::remove(file);
  detail::forget_calibrations();
}
