// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device tests of the automatic switching schedule (label gpu): every form of its candidate list
// (direct forms at each march window and task order, switching forms) runs each task exactly once
// with outputs equal to vanilla's (Monte Carlo bit for bit, the ray caster within the raycast
// sample's tolerance), at 1, 31 and 33 tasks, an odd image and a larger size; the schedule decides,
// and its chosen form then runs each task once, also through a check after its work changed;
// objects made per call share one choice; a choice saved to a calibration file starts a later
// scheduler decided, and its choice runs each task once.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
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

namespace {
//! The Monte Carlo branch program (p = 0.05 unless given) on `n` tasks, counted, with vanilla's
//! sums.
struct counted_montecarlo {
  using counted = counted_program<kernels::montecarlo_branch_program>;
  explicit counted_montecarlo(task_id tasks, int outer = 60, int inner = 40,
                              float probability = 0.05f)
      : n(tasks), sum(n), entered(n), want_sum(n), want_entered(n), counts(n) {
    kernels::montecarlo_branch_program p;
    p.outer = outer;
    p.inner = inner;
    p.probability = probability;
    p.sum_out = want_sum.data();
    p.entered_out = want_entered.data();
    baselines::run_vanilla(switching::divergent_program<kernels::montecarlo_branch_program>{p}, n,
                           nullptr);
    p.sum_out = sum.data();
    p.entered_out = entered.data();
    program = counted{p, counts.data()};
  }
  //! One run through `automatic`: every task once, the sums equal to vanilla's.
  template <class Automatic>
  void run_checked(Automatic& automatic) {
    counts.fill_bytes(0, nullptr);
    sum.fill_bytes(0xff, nullptr);
    automatic.run(program, n);
    const auto c = counts.to_host(nullptr);
    for (task_id t = 0; t < n; ++t) REQUIRE(c[t] == 1);
    CHECK(sum.to_host(nullptr) == want_sum.to_host(nullptr));
    CHECK(entered.to_host(nullptr) == want_entered.to_host(nullptr));
  }
  task_id n;
  device_buffer<std::uint32_t> sum, entered, want_sum, want_entered, counts;
  counted program{};
};
}  // namespace

TEST_CASE("the automatic switching schedule decides, and its choice runs each task once") {
  for (const task_id n : {task_id{1}, task_id{33}, small_run() ? task_id{300} : task_id{5000}}) {
    counted_montecarlo mc(n);
    switching::automatic_switching<counted_montecarlo::counted, switching_policy<128, 64>>
        automatic;
    CHECK(!automatic.decided());
    CHECK_THROWS_AS((void)automatic.choice(), std::logic_error);
    automatic.calibrate(mc.program, n);
    REQUIRE(automatic.decided());
    INFO(automatic.report());
    CHECK(automatic.calibration_ms() > 0);
    mc.run_checked(automatic);
  }
}

TEST_CASE("the direct mapping in blocks of 128: every task once, sums equal to vanilla") {
  std::vector<task_id> sizes{0, 1, 31, 33, 4097};
  if (!small_run()) sizes.push_back((task_id{1} << 20) + 7);
  for (const task_id n : sizes) {
    CAPTURE(n);
    counted_montecarlo mc(n, 20, 8);
    mc.counts.fill_bytes(0, nullptr);
    mc.sum.fill_bytes(0xff, nullptr);
    if (n > 0) {
      direct_kernel_one_per_thread<counted_montecarlo::counted, direct_small_block_threads>
          <<<static_cast<unsigned>(direct_blocks(n, direct_small_block_threads)),
             direct_small_block_threads>>>(mc.program, n);
      MICROSCHED_CHECK_LAUNCH("direct_kernel_one_per_thread<128>");
    }
    const auto c = mc.counts.to_host(nullptr);
    std::size_t wrong = 0;
    for (task_id t = 0; t < n; ++t) wrong += c[t] != 1 ? 1 : 0;
    CHECK(wrong == 0);
    if (n == 0) continue;
    CHECK(mc.sum.to_host(nullptr) == mc.want_sum.to_host(nullptr));
    CHECK(mc.entered.to_host(nullptr) == mc.want_entered.to_host(nullptr));
  }
}

TEST_CASE("a managed program's direct form takes the block size that keeps more threads") {
  using counted = counted_montecarlo::counted;
  using policy = switching_policy<128, 64>;
  int of_wide = 0;
  int of_small = 0;
  const auto* wide =
      reinterpret_cast<const void*>(direct_kernel_one_per_thread<counted, direct_block_threads>);
  MICROSCHED_CUDA_TRY(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&of_wide, wide, direct_block_threads, 0));
  MICROSCHED_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&of_small, wide,
                                                                    direct_small_block_threads, 0));
  MESSAGE("blocks per SM: ", of_wide, " of 256, ", of_small, " of 128");
  schedule_arguments direct;
  direct.strategy = pool_strategy::direct;
  const task_id n = 5000;
  CHECK(scheduler<counted, policy>(direct).plan(n).threads_per_block ==
        direct_threads_for(of_wide, of_small));
  // The grid-stride form and ids past 2^31 keep blocks of 256.
  schedule_arguments strided;
  strided.strategy = pool_strategy::strided;
  CHECK(scheduler<counted, policy>(strided).plan(n).threads_per_block == direct_block_threads);
  CHECK(scheduler<counted, policy>(direct).plan((task_id{1} << 31) + 1).threads_per_block ==
        direct_block_threads);
  // The same form runs each task once whatever the block.
  counted_montecarlo mc(n);
  mc.counts.fill_bytes(0, nullptr);
  mc.sum.fill_bytes(0xff, nullptr);
  scheduler<counted, policy>(direct).run(mc.program, n);
  const auto c = mc.counts.to_host(nullptr);
  std::size_t wrong = 0;
  for (task_id t = 0; t < n; ++t) wrong += c[t] != 1 ? 1 : 0;
  CHECK(wrong == 0);
  CHECK(mc.sum.to_host(nullptr) == mc.want_sum.to_host(nullptr));
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

namespace {
//! Forgets the process's choices when a test ends, however it ends.
struct forget_calibrations_after {
  forget_calibrations_after() { detail::forget_calibrations(); }
  ~forget_calibrations_after() { detail::forget_calibrations(); }
};
}  // namespace

TEST_CASE("a choice from the calibration cache: kept if direct, checked if switching") {
  const forget_calibrations_after clean;
  counted_montecarlo mc(small_run() ? 300 : 5000);
  const task_id n = mc.n;
  using counted = counted_montecarlo::counted;
  using policy = switching_policy<128, 64>;
  using automatic_t = switching::automatic_switching<counted, policy>;
  const counted& program = mc.program;
  const device_info d = current_device();
  const std::string key =
      detail::automatic_key<counted, policy>(detail::device_key(d.ordinal, d.name));
  const auto forms = switching::branch_forms(true, {}, {});
  const int k = size_class(n);

  // A direct choice is kept as it is: decided before any run, nothing timed.
  const switching::branch_form& direct = forms[2];  // direct w64
  REQUIRE(direct.direct());
  detail::seed_calibration({key, k, switching::cached_form_text(direct, direct), direct.schedule});
  automatic_t kept;
  CHECK_FALSE(kept.next_form(n).has_value());  // before the size class's first run
  mc.run_checked(kept);
  CHECK(kept.next_form(n) == std::optional<switching::branch_form>(direct));
  REQUIRE(kept.decided());
  CHECK(kept.from_cache());
  CHECK(kept.calibration_ms() == 0);
  CHECK(kept.choice() == direct);
  CHECK(kept.report().find("chosen by an earlier process") != std::string::npos);
  CHECK_THROWS_AS((void)kept.best_direct(), std::logic_error);

  // A switching choice is timed against the direct form it beat first: kept if it still wins,
  // else chosen again; every run meanwhile runs each task once.
  detail::forget_calibrations();
  const switching::branch_form& pools = forms.back();
  REQUIRE_FALSE(pools.direct());
  detail::seed_calibration({key, k, switching::cached_form_text(pools, direct), pools.schedule});
  automatic_t checked;
  mc.run_checked(checked);
  CHECK(checked.next_form(n) == std::optional<switching::branch_form>(pools));  // its second run
  for (int run = 1; run < 4; ++run) mc.run_checked(checked);
  INFO(checked.report());
  CHECK(checked.calibration_ms() > 0);
  if (checked.decided()) {
    CHECK(checked.from_cache());
    CHECK(checked.choice() == pools);
    CHECK(checked.best_direct() == direct);
    CHECK(checked.report().find("checked here") != std::string::npos);
  } else {
    CHECK_FALSE(checked.from_cache());  // it lost: the size class chooses again
  }
  checked.calibrate(program, n);
  mc.run_checked(checked);

  // A harness that asks for no cache chooses in the process.
  switching::branch_form_options here;
  here.cache = false;
  automatic_t uncached(here);
  uncached.run(program, n);
  CHECK_FALSE(uncached.decided());
  CHECK_FALSE(uncached.from_cache());
}

TEST_CASE("automatic_switching objects made per call share the process's choice") {
  const forget_calibrations_after clean;
  counted_montecarlo mc(small_run() ? 300 : 5000);
  using automatic_t =
      switching::automatic_switching<counted_montecarlo::counted, switching_policy<128, 64>>;
  // 10 forms: round one times each at most twice, round two at most all ten three times.
  const int most_runs = 10 * 2 + 10 * 3;
  int calls = 0;
  bool decided = false;
  while (!decided && calls < most_runs + 5) {
    automatic_t per_call;  // a new object every call, as a function that makes one would
    mc.run_checked(per_call);
    decided = per_call.decided();
    ++calls;
  }
  CHECK(decided);
  CHECK(calls <= most_runs);
  automatic_t later;
  mc.run_checked(later);
  REQUIRE(later.decided());
  CHECK_FALSE(later.from_cache());  // the same choice, not one adopted from the cache
  CHECK(later.calibration_ms() > 0);
  // Other options, or no cache, make another choice.
  switching::branch_form_options alone;
  alone.cache = false;
  automatic_t own(alone);
  mc.run_checked(own);
  CHECK_FALSE(own.decided());
  switching::branch_form_options wider;
  wider.margin = 0.05;
  automatic_t other(wider);
  mc.run_checked(other);
  CHECK(other.decided() == (other.from_cache() && other.calibration_ms() == 0));
}

TEST_CASE("a decided choice whose work changes is checked, and every run runs each task once") {
  const forget_calibrations_after clean;
  const task_id n = small_run() ? 300 : 5000;
  const int loop = small_run() ? 60 : 200;  // heavy: the branch on every iteration
  counted_montecarlo heavy(n, loop, loop, 1.0f);
  counted_montecarlo light(n, loop, loop, 0.01f);  // about 1/50 of heavy's work
  switching::automatic_switching<counted_montecarlo::counted, switching_policy<128, 64>> automatic;
  automatic.calibrate(heavy.program, n);  // long runs: timed every fourth call once decided
  REQUIRE(automatic.decided());
  const double chosen_cost = automatic.calibration_ms();
  const std::string before = automatic.report();
  int calls = 0;
  bool checked = false;
  while (!(checked && automatic.decided()) && calls < 300) {
    light.run_checked(automatic);
    checked = automatic.report().find("after a drift") != std::string::npos;
    ++calls;
  }
  INFO(before);
  INFO(automatic.report());
  CAPTURE(calls);
  // Under compute-sanitizer each launch's instrumentation outweighs the work, so no drift shows.
  if (!small_run()) {
    CHECK(checked);
    // Timed on the fourth call and confirmed on the fifth, read a call later each; round zero's
    // four runs, then at most the other 8 forms twice and 10 finalists three times.
    CHECK(calls <= 6 + 4 + 8 * 2 + 10 * 3);
    REQUIRE(automatic.decided());
    CHECK(automatic.calibration_ms() > chosen_cost);  // the check timed runs
  }
  heavy.run_checked(automatic);
  light.run_checked(automatic);
}

TEST_CASE("a choice saved to a calibration file starts a later automatic_switching") {
  const forget_calibrations_after clean;
  kernels::montecarlo_branch_program p;
  p.outer = 60;
  p.inner = 40;
  p.probability = 0.05f;
  const task_id n = small_run() ? 300 : 5000;
  device_buffer<std::uint32_t> sum(n), entered(n);
  p.sum_out = sum.data();
  p.entered_out = entered.data();
  using automatic_t =
      switching::automatic_switching<kernels::montecarlo_branch_program, switching_policy<128, 64>>;
  const auto file = std::filesystem::temp_directory_path() / "microsched_test_switching_cache";
  switching::branch_form chosen;
  {
    automatic_t first;  // the earlier process
    first.calibrate(p, n);
    REQUIRE(first.decided());
    CHECK_FALSE(first.from_cache());
    chosen = first.choice();
    save_calibrations(file);
  }
  detail::forget_calibrations();
  const calibration_load loaded = load_calibrations(file);
  std::filesystem::remove(file);
  INFO(loaded.problem);
  REQUIRE(loaded.loaded >= 1);
  automatic_t later;
  later.calibrate(p, n);
  REQUIRE(later.decided());
  INFO(later.report());
  if (chosen.direct()) {  // kept with no timed run
    CHECK(later.from_cache());
    CHECK(later.calibration_ms() == 0);
  }
  if (later.from_cache()) CHECK(later.choice() == chosen);
}
