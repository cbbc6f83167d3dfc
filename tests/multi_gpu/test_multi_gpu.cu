// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device tests of multi_scheduler: every task runs exactly once over the slots (per-slot counts
// summed on the host), the outputs gathered from the slots equal the single-GPU scheduler's, at
// sizes 0, 1, fewer tasks than slots and 2^20 + 7, under interleaved claims, contiguous claims and
// the equal split.
// Built twice: test_multi_gpu_one_gpu lists GPU 0 three times (the claim logic on one GPU);
// test_multi_gpu runs on every visible GPU and is skipped below two.
#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "julia/julia_program.cuh"
#include "microsched/check/counted_program.cuh"
#include "microsched/device_buffer.hpp"
#include "microsched/multi_gpu/copy_claimed.hpp"
#include "microsched/multi_gpu/multi_scheduler.cuh"
#include "montecarlo/montecarlo_program.cuh"
#include "multi_gpu_test_devices.hpp"

using namespace microsched;
using namespace microsched::multi_gpu;
using kernels::julia_program;
using kernels::montecarlo_program;

namespace {

//! One slot's buffers: outputs and counts for every task of the range (it fills what it claims).
struct slot_buffers {
  explicit slot_buffers(task_id count) : out(count), sums(count), counts(count) {
    out.fill_bytes(0xff);
    sums.fill_bytes(0xff);
    counts.fill_bytes(0);
  }
  device_buffer<std::uint32_t> out;
  device_buffer<std::uint32_t> sums;
  device_buffer<std::uint32_t> counts;
};

montecarlo_program walks(std::uint32_t* steps, std::uint32_t* sums) {
  montecarlo_program p;
  p.kill_probability = 0.05f;
  p.steps_out = steps;
  p.sum_out = sums;
  return p;
}

//! The single-GPU scheduler's Monte Carlo outputs on GPU 0: (steps, sums).
std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> single_gpu_walks(task_id count) {
  const device_guard on(0);
  device_buffer<std::uint32_t> steps(count);
  device_buffer<std::uint32_t> sums(count);
  scheduler<montecarlo_program> sched;
  sched.run(walks(steps.data(), sums.data()), count);
  return {steps.to_host(), sums.to_host()};
}

//! Runs `count` walks over `devices` under `split` (claims interleaved or contiguous), then
//! checks counts and outputs.
void verify_walks(const std::vector<int>& devices, split_mode split, task_id count,
                  bool interleave) {
  CAPTURE(count);
  CAPTURE(to_string(split));
  CAPTURE(interleave);
  multi_arguments args;
  args.devices = devices;
  args.split = split;
  args.claims.min_tasks = 1024;  // several claims per slot even at 2^20 tasks
  args.claims.interleave = interleave;
  multi_scheduler<counted_program<montecarlo_program>> sched(args);
  std::vector<std::unique_ptr<slot_buffers>> buffers;
  for (const int d : sched.devices()) {
    const device_guard on(d);
    buffers.push_back(std::make_unique<slot_buffers>(count));
    MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  }
  multi_run run = sched.run(
      [&](device_slot s) {
        slot_buffers& b = *buffers[static_cast<std::size_t>(s.slot)];
        return counted_program<montecarlo_program>{walks(b.out.data(), b.sums.data()),
                                                   b.counts.data()};
      },
      count);
  run.wait();
  CAPTURE(sched.report(count));
  // Exactly once: the slots' counts summed per task.
  std::vector<std::uint32_t> total(count, 0);
  for (std::size_t s = 0; s < buffers.size(); ++s) {
    const device_guard on(sched.devices()[s]);
    const std::vector<std::uint32_t> mine = buffers[s]->counts.to_host();
    for (task_id t = 0; t < count; ++t) total[t] += mine[t];
  }
  task_id wrong = 0;
  for (task_id t = 0; t < count; ++t) wrong += total[t] != 1;
  CHECK(wrong == 0);
  // The claims say the same: together they tile the range.
  task_id claimed = 0;
  for (int s = 0; s < sched.slots(); ++s) claimed += run.tasks(s);
  CHECK(claimed == count);
  // The timeline: a slot that claimed was enqueued, then finished; one that did not, neither.
  const std::vector<slot_timing> when = run.timeline();
  REQUIRE(when.size() == static_cast<std::size_t>(sched.slots()));
  for (int s = 0; s < sched.slots(); ++s) {
    CAPTURE(s);
    const slot_timing& t = when[static_cast<std::size_t>(s)];
    if (run.tasks(s) > 0) {
      CHECK(t.enqueued_ms >= 0);
      CHECK(t.finished_ms >= t.enqueued_ms);
    } else {
      CHECK(t.enqueued_ms == -1);
    }
  }
  // Outputs gathered from the slots equal the single-GPU run's.
  std::vector<std::uint32_t> steps(count), sums(count);
  std::vector<const std::uint32_t*> slot_steps, slot_sums;
  for (const auto& b : buffers) {
    slot_steps.push_back(b->out.data());
    slot_sums.push_back(b->sums.data());
  }
  copy_claimed(run, sched.devices(), slot_steps, steps.data());
  copy_claimed(run, sched.devices(), slot_sums, sums.data());
  const auto [want_steps, want_sums] = single_gpu_walks(count);
  CHECK(steps == want_steps);
  CHECK(sums == want_sums);
}

}  // namespace

TEST_CASE("walks: every task once over the slots, outputs equal to one GPU") {
  const std::vector<int> devices = test_devices();
  for (const int mode : {0, 1, 2}) {  // interleaved claims, contiguous claims, equal split
    for (const task_id count :
         {task_id{1}, task_id{devices.size() - 1}, task_id{1000}, (task_id{1} << 20) + 7}) {
      if (count == 0) continue;
      verify_walks(devices, mode == 2 ? split_mode::equal : split_mode::dynamic, count, mode == 0);
    }
  }
}

TEST_CASE("zero tasks: no claims, nothing runs") {
  multi_arguments args;
  args.devices = test_devices();
  multi_scheduler<montecarlo_program> sched(args);
  multi_run run = sched.run(walks(nullptr, nullptr), 0);  // would fault if a task ran
  run.wait();
  for (const auto& mine : run.claims()) CHECK(mine.empty());
}

TEST_CASE("julia: pixels gathered from the slots equal the single-GPU image") {
  const int width = 1000;
  const int height = 777;
  const task_id count = task_id{width} * height;
  julia_program<float> program;
  program.view = kernels::make_julia_view<float>(width, height, 0.5);
  program.crunch = 1000;
  std::vector<std::uint32_t> want;
  {
    const device_guard on(0);
    device_buffer<std::uint32_t> out(count);
    program.out = out.data();
    scheduler<julia_program<float>>{}.run(program, count);
    want = out.to_host();
  }
  multi_arguments args;
  args.devices = test_devices();
  args.claims.min_tasks = 1024;
  multi_scheduler<julia_program<float>> sched(args);
  std::vector<device_buffer<std::uint32_t>> outs;
  for (const int d : sched.devices()) {
    const device_guard on(d);
    outs.emplace_back(count);
  }
  // Two runs in a row on one scheduler, the first not waited for: the second follows it.
  multi_run first = sched.run(
      [&](device_slot s) {
        julia_program<float> p = program;
        p.out = outs[static_cast<std::size_t>(s.slot)].data();
        return p;
      },
      count);
  multi_run second = sched.run(
      [&](device_slot s) {
        julia_program<float> p = program;
        p.out = outs[static_cast<std::size_t>(s.slot)].data();
        return p;
      },
      count);
  second.wait();
  first.wait();
  std::vector<std::uint32_t> got(count, 0xffffffffu);
  std::vector<const std::uint32_t*> slot_outs;
  for (const auto& o : outs) slot_outs.push_back(o.data());
  copy_claimed(second, sched.devices(), slot_outs, got.data());
  CHECK(got == want);
}

TEST_CASE("one slot: the single-GPU path runs the whole range, and says so") {
  multi_arguments args;
  args.devices = {0};
  multi_scheduler<counted_program<montecarlo_program>> sched(args);
  CHECK(sched.report(100).find("one GPU") == 0);
  const task_id count = 5000;
  device_buffer<std::uint32_t> steps(count), sums(count), counts(count);
  counts.fill_bytes(0);
  multi_run run = sched.run(
      counted_program<montecarlo_program>{walks(steps.data(), sums.data()), counts.data()}, count);
  run.wait();
  const std::vector<std::uint32_t> c = counts.to_host();
  CHECK(std::count(c.begin(), c.end(), 1u) == static_cast<std::ptrdiff_t>(count));
  REQUIRE(run.claims().size() == 1);
  CHECK(run.claims()[0] == std::vector<claimed_range>{{0, count}});
  REQUIRE(run.timeline().size() == 1);
  CHECK(run.timeline()[0].finished_ms >= run.timeline()[0].enqueued_ms);
  CHECK(run.timeline()[0].enqueued_ms >= 0);
}

TEST_CASE("arguments: an invisible device and too many tasks are refused before device work") {
  multi_arguments args;
  args.devices = {0, 4096};
  CHECK_THROWS_AS(multi_scheduler<montecarlo_program>{args}, std::invalid_argument);
  args.devices = test_devices();
  multi_scheduler<montecarlo_program> sched(args);
  CHECK_THROWS_AS((void)sched.run(walks(nullptr, nullptr), max_range_tasks + 1),
                  std::invalid_argument);
  CHECK(sched.report(1 << 20).find("interleaved claims") != std::string::npos);
}

TEST_CASE("the guide's example: one buffer per GPU, gathered after the run") {
  const task_id count = 100000;
  std::vector<std::uint32_t> host(count);
  // example-begin multi-gpu-run
  multi_arguments args;
  args.devices = test_devices();  // empty: every visible GPU
  multi_scheduler<montecarlo_program> sched(args);
  std::vector<device_buffer<std::uint32_t>> steps, sums;  // one pair per GPU, `count` long
  for (const int d : sched.devices()) {
    const device_guard on(d);
    steps.emplace_back(count);
    sums.emplace_back(count);
  }
  multi_run run = sched.run(
      [&](device_slot s) {  // once per GPU, with that GPU current
        return walks(steps[s.slot].data(), sums[s.slot].data());
      },
      count);  // returns at once, like a launch
  run.wait();  // every GPU done; rethrows a GPU's error
  // run.claims()[slot]: the claims that GPU ran; copy_claimed gathers them into one array
  std::vector<const std::uint32_t*> per_gpu;
  for (const auto& b : steps) per_gpu.push_back(b.data());
  copy_claimed(run, sched.devices(), per_gpu, host.data());
  // example-end multi-gpu-run
  CHECK(host == single_gpu_walks(count).first);
}
