// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file task_workload.cuh
//! The shared machinery of a workload built from one task program: reference outputs from the
//! vanilla kernel, timing of every variant with CUDA events, and the exactly-once check. A
//! concrete workload only says how to build its program over a set of 32-bit output arrays.

#include <array>
#include <cmath>
#include <memory>
#include <string>

#include "baselines/vanilla.cuh"
#include "baselines/warp_persistent.cuh"
#include "microsched/check/counted_program.cuh"
#include "microsched/check/prize_kernels.cuh"
#include "microsched/check/prize_report.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/measure/event_timer.hpp"
#include "microsched/scheduler.cuh"
#include "workload.hpp"

namespace microsched::workloads {

inline constexpr int scheduler_block_threads = 128;

//! Base lets a workload add its own interface (e.g. images) on top of `workload`.
template <task_program Program, int Outputs, class Base = workload>
class task_workload : public Base {
 public:
  using outputs = std::array<std::uint32_t*, Outputs>;

  explicit task_workload(task_id num_tasks) : num_tasks_(num_tasks), steps_(1) {
    for (int i = 0; i < Outputs; ++i) {
      reference_[i] = device_buffer<std::uint32_t>(num_tasks);
      run_[i] = device_buffer<std::uint32_t>(num_tasks);
    }
    counts_ = task_counters(num_tasks);
  }

  [[nodiscard]] std::uint64_t num_tasks() const override { return num_tasks_; }

  [[nodiscard]] std::uint64_t total_steps() override {
    ensure_reference();
    return total_steps_;
  }

  timing_stats time_vanilla(const timing_options& options) override {
    const Program program = make_program(run_pointers());
    return timer_.time([&](cudaStream_t s) { baselines::run_vanilla(program, num_tasks_, s); },
                       options, stream_.get());
  }

  timing_stats time_warp_persistent(const timing_options& options) override {
    const Program program = make_program(run_pointers());
    return timer_.time([&](cudaStream_t s) { persistent_.run(program, num_tasks_, s); }, options,
                       stream_.get());
  }

  //! The uniform-work floor at the exact mean step count (detail::time_floor_at_mean).
  timing_stats time_floor(const timing_options& options) override {
    ensure_reference();
    const Program program = make_program(run_pointers());
    return detail::time_floor_at_mean(
        timer_, program, num_tasks_,
        static_cast<double>(total_steps_) / static_cast<double>(num_tasks_), options,
        stream_.get());
  }

  timing_stats time_longest_task_alone(const timing_options& options) override {
    const Program program = make_program(run_pointers());
    prize_report steps;  // the step statistics of the prize call, for its longest task
    detail::summarize_steps(detail::steps_per_task(program, num_tasks_, stream_.get()), steps);
    return timer_.time(
        [&](cudaStream_t s) { detail::run_single_task(program, steps.longest_task, s); }, options,
        stream_.get());
  }

  timing_stats time_scheduled(const schedule_arguments& args,
                              const timing_options& options) override {
    scheduler<Program, termination_policy<scheduler_block_threads>> sched(args);
    (void)sched.plan(num_tasks_);  // throws here, before timing, if the schedule cannot launch
    const Program program = make_program(run_pointers());
    sched.calibrate(program, num_tasks_, stream_.get());  // automatic: choose before timing
    return timer_.time([&](cudaStream_t s) { sched.run(program, num_tasks_, s); }, options,
                       stream_.get());
  }

  verification_report verify_scheduled(const schedule_arguments& args) override {
    ensure_reference();
    scheduler<counted_program<Program>, termination_policy<scheduler_block_threads>> sched(args);
    for (auto& buffer : run_) buffer.fill_bytes(0xff, stream_.get());  // poison
    counts_.reset(stream_.get());
    sched.run({make_program(run_pointers()), counts_.data()}, num_tasks_, stream_.get());
    stream_.synchronize();
    return compare_with_reference();
  }

  [[nodiscard]] std::vector<resource_report> resources(const schedule_arguments& args) override {
    scheduler<Program, termination_policy<scheduler_block_threads>> sched(args);
    std::vector<resource_report> out;
    const launch_plan plan = sched.plan(num_tasks_);
    out.push_back(report("microsched " + to_string(args.strategy), plan.resources, plan.blocks));
    out.back().dynamic_shared_bytes = plan.dynamic_shared_bytes;
    out.push_back(report("vanilla",
                         query_resources(baselines::vanilla_kernel<Program, false>,
                                         baselines::vanilla_block_threads),
                         baselines::vanilla_blocks(num_tasks_)));
    out.push_back(report("warp persistent", persistent_.resources(), persistent_.grid_blocks()));
    return out;
  }

  [[nodiscard]] std::string schedule_report(const schedule_arguments& args) override {
    scheduler<Program, termination_policy<scheduler_block_threads>> sched(args);
    return sched.report(num_tasks_);
  }

  //! Output array i of the last run (scheduled, vanilla or checked), copied to the host.
  [[nodiscard]] std::vector<std::uint32_t> last_output(int i) {
    return run_[i].to_host(stream_.get());
  }
  [[nodiscard]] cudaStream_t stream() const { return stream_.get(); }

  //! Runs microsched once (no timing) so last_output() holds its result.
  void run_scheduled_once(const schedule_arguments& args) {
    scheduler<Program, termination_policy<scheduler_block_threads>> sched(args);
    sched.run(make_program(run_pointers()), num_tasks_, stream_.get());
    stream_.synchronize();
  }

 protected:
  [[nodiscard]] virtual Program make_program(const outputs& out) const = 0;

 private:
  static resource_report report(std::string kernel, const kernel_resources& r,
                                std::uint64_t grid_blocks) {
    return {std::move(kernel), r.registers,         r.static_shared_bytes,
            r.local_bytes,     r.max_blocks_per_sm, r.threads_per_block,
            grid_blocks};
  }

  [[nodiscard]] outputs run_pointers() const {
    outputs p{};
    for (int i = 0; i < Outputs; ++i) p[i] = run_[i].data();
    return p;
  }

  void ensure_reference() {
    if (have_reference_) return;
    outputs p{};
    for (int i = 0; i < Outputs; ++i) {
      reference_[i].fill_bytes(0xff, stream_.get());
      p[i] = reference_[i].data();
    }
    steps_.fill_bytes(0, stream_.get());
    baselines::run_vanilla(make_program(p), num_tasks_, stream_.get(), steps_.data());
    total_steps_ = steps_.to_host(stream_.get())[0];
    have_reference_ = true;
  }

  verification_report compare_with_reference() {
    verification_report r;
    r.tasks = num_tasks_;
    const exactly_once_count once = counts_.check(stream_.get(), 200);
    r.missing = once.missing;
    r.duplicated = once.duplicated;
    r.detail = once.detail;
    for (int i = 0; i < Outputs; ++i) {
      const auto got = run_[i].to_host(stream_.get());
      const auto want = reference_[i].to_host(stream_.get());
      for (task_id t = 0; t < num_tasks_; ++t) {
        if (got[t] == want[t]) continue;
        ++r.mismatched;
        if (r.detail.size() < 400) {
          r.detail += "output " + std::to_string(i) + " of task " + std::to_string(t) + ": " +
                      std::to_string(got[t]) + " != vanilla " + std::to_string(want[t]) + "; ";
        }
      }
    }
    r.passed = r.missing == 0 && r.duplicated == 0 && r.mismatched == 0;
    return r;
  }

  task_id num_tasks_;
  cuda_stream stream_;
  event_timer timer_;
  std::array<device_buffer<std::uint32_t>, Outputs> reference_;
  std::array<device_buffer<std::uint32_t>, Outputs> run_;
  task_counters counts_;
  device_buffer<unsigned long long> steps_;
  baselines::warp_persistent_runner<Program> persistent_;
  bool have_reference_ = false;
  std::uint64_t total_steps_ = 0;
};

}  // namespace microsched::workloads
