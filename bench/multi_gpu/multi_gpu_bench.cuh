// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
// The one-process multi-GPU benchmark's parts: its options, one workload's measurement (the
// single-GPU default on GPU 0, then multi_scheduler on the first N GPUs in each variant), and
// the workloads, each compiled in a file of its own so that they build in parallel.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "microsched/device_buffer.hpp"
#include "microsched/error.hpp"
#include "microsched/multi_gpu/copy_claimed.hpp"
#include "microsched/multi_gpu/multi_scheduler.cuh"
#include "microsched/schedule/automatic_schedule.hpp"
#include "multi_gpu_workloads.cuh"

namespace microsched::bench {

using clock_type = std::chrono::steady_clock;

inline double ms_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct multi_options {
  std::vector<int> gpus{1, 2, 4};
  std::vector<std::string> workloads{"julia", "walks", "skewed"};
  //! Variants of the run (variant_arguments).
  std::vector<std::string> variants{"dynamic", "equal"};
  workload_sizes sizes;
  int warmup = 6;
  int repetitions = 7;
  bool check = true;
  bool claim_costs = true;
};

struct multi_row {
  std::string workload;
  int gpus = 1;
  std::string variant;
  double ms = 0;
  double scaling = 1;
  std::string detail;
};

//! The arguments of a variant on the first `gpus` GPUs: "dynamic" (the defaults), or parts
//! joined by '+': equal (the static equal split), contiguous (guided contiguous claims), guided
//! (guided interleaved claims), claims-N (N equal interleaved claims per GPU), last-N (guided
//! interleaved claims down to 1/N of a GPU's share), streams-N (claims
//! on N streams per GPU, N claims in flight at least), fixed (each GPU runs `fixed`, the
//! single-GPU default's choice, instead of its own automatic schedule). Throws
//! std::invalid_argument naming an unknown part.
inline multi_gpu::multi_arguments variant_arguments(const std::string& name, int gpus,
                                                    const schedule_arguments& fixed = {}) {
  multi_gpu::multi_arguments args;
  for (int d = 0; d < gpus; ++d) args.devices.push_back(d);
  const auto number = [&](const std::string& part, std::size_t prefix, long most) {
    const std::string n = part.substr(prefix);
    std::size_t used = 0;
    const long value =
        n.empty() || n.size() > 6 || n[0] < '0' || n[0] > '9' ? 0 : std::stol(n, &used);
    if (used != n.size() || value < 1 || value > most) {
      throw std::invalid_argument("--variants = '" + name + "': " + part.substr(0, prefix) +
                                  "N takes N in [1, " + std::to_string(most) + "]");
    }
    return value;
  };
  std::stringstream parts(name);
  for (std::string part; std::getline(parts, part, '+');) {
    if (part == "dynamic") {
    } else if (part == "fixed") {
      args.schedule = fixed;
    } else if (part == "equal") {
      args.split = multi_gpu::split_mode::equal;
    } else if (part == "contiguous" || part == "guided") {
      args.claims.interleave = part == "guided";
      args.claims.share_divisor = 2;
      args.claims.granules = 64;
    } else if (part.rfind("claims-", 0) == 0) {
      const auto per_gpu = static_cast<task_id>(number(part, 7, 4096));
      args.claims.granules = per_gpu;
      args.claims.share_divisor = per_gpu;
    } else if (part.rfind("last-", 0) == 0) {
      args.claims.granules = static_cast<task_id>(number(part, 5, 4096));
    } else if (part.rfind("streams-", 0) == 0) {
      args.claims.streams = static_cast<int>(number(part, 8, 16));
      args.claims.in_flight = std::max(args.claims.in_flight, args.claims.streams);
    } else {
      throw std::invalid_argument("--variants = '" + name + "': '" + part +
                                  "' is none of dynamic, equal, fixed, last-N, "
                                  "contiguous, guided, claims-N, streams-N");
    }
  }
  return args;
}

//! Per-GPU output arrays (`outputs` of them, one uint32 per task), allocated on each GPU once.
struct gpu_outputs {
  gpu_outputs(int devices, int outputs, task_id count) {
    for (int d = 0; d < devices; ++d) {
      const multi_gpu::device_guard on(d);
      std::vector<device_buffer<std::uint32_t>> mine;
      for (int o = 0; o < outputs; ++o) mine.emplace_back(count);
      arrays.push_back(std::move(mine));
    }
  }
  std::vector<std::uint32_t*> of(int device) {
    std::vector<std::uint32_t*> p;
    for (auto& a : arrays[static_cast<std::size_t>(device)]) p.push_back(a.data());
    return p;
  }
  std::vector<std::vector<device_buffer<std::uint32_t>>> arrays;  //!< (device, output)
};

//! The baseline of bench_workload: the single-GPU scheduler's default on GPU 0.
struct baseline_run {
  std::vector<std::uint32_t> want;  //!< GPU 0's first output array (with opt.check)
  double ms = 0;                    //!< the median run
  schedule_arguments chosen;        //!< the schedule it chose for `count` tasks
};

//! Times the baseline on GPU 0 and adds its row.
template <class Program, class Make>
baseline_run bench_baseline(const std::string& name, task_id count, Make& make, gpu_outputs& out,
                            const multi_options& opt, std::vector<multi_row>& rows) {
  const multi_gpu::device_guard on(0);
  baseline_run b;
  const Program program = make(out.of(0));
  scheduler<Program> sched;
  sched.calibrate(program, count);
  std::vector<double> times;
  for (int r = 0; r < opt.warmup + opt.repetitions; ++r) {
    const auto start = clock_type::now();
    sched.run(program, count);
    MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
    if (r >= opt.warmup) times.push_back(ms_since(start));
  }
  b.ms = median(times);
  b.chosen = sched.schedule_for(count);
  if (opt.check) b.want = out.arrays[0][0].to_host();
  rows.push_back({name, 1, "single-GPU scheduler", b.ms, 1.0, sched.report(count)});
  std::printf("%-7s baseline (scheduler on GPU 0): %.3f ms; %s\n", name.c_str(), b.ms,
              sched.report(count).c_str());
  std::fflush(stdout);
  return b;
}

//! The timed runs of one variant, and the last run for its claims and outputs.
struct variant_runs {
  std::vector<double> times;       //!< wall-clock ms of each run
  std::vector<double> late_start;  //!< when the last GPU's first claim was enqueued
  std::vector<double> spread;      //!< first to last GPU to finish
  multi_gpu::multi_run last;
};

//! Runs `sched` over `count` tasks, warm-up runs first; times the rest.
template <class Scheduler, class Factory>
variant_runs time_variant(Scheduler& sched, const Factory& factory, task_id count,
                          const multi_options& opt) {
  variant_runs v;
  for (int r = 0; r < opt.warmup + opt.repetitions; ++r) {
    const auto start = clock_type::now();
    multi_gpu::multi_run run = sched.run(factory, count);
    run.wait();
    if (r >= opt.warmup) {
      v.times.push_back(ms_since(start));
      double last_start = 0, end_min = 1e30, end_max = 0;
      for (const multi_gpu::slot_timing& t : run.timeline()) {
        last_start = std::max(last_start, t.enqueued_ms);
        end_min = std::min(end_min, t.finished_ms);
        end_max = std::max(end_max, t.finished_ms);
      }
      v.late_start.push_back(last_start);
      v.spread.push_back(end_max - end_min);
    }
    v.last = std::move(run);
  }
  return v;
}

//! A variant row's detail: claims and tasks per GPU, the runs' range, start and finish spread,
//! and the schedule each GPU chose.
template <class Scheduler>
void describe_runs(std::ostringstream& detail, Scheduler& sched, const variant_runs& v,
                   task_id count) {
  const multi_gpu::multi_run& last = v.last;
  detail << "claims per GPU";
  task_id most_tasks = 0;
  task_id fewest = count;
  for (int s = 0; s < sched.slots(); ++s) {
    most_tasks = std::max(most_tasks, last.tasks(s));
    fewest = std::min(fewest, last.tasks(s));
    detail << " " << last.claims()[static_cast<std::size_t>(s)].size();
  }
  detail << "; tasks per GPU " << fewest << ".." << most_tasks << "; runs "
         << *std::min_element(v.times.begin(), v.times.end()) << ".."
         << *std::max_element(v.times.begin(), v.times.end()) << " ms; last GPU's first claim at "
         << median(v.late_start) << " ms, GPUs finish within " << median(v.spread) << " ms";
  detail << "; choices";
  for (int s = 0; s < sched.slots(); ++s) {  // the schedule each GPU runs its claims with
    const std::size_t claims = last.claims()[static_cast<std::size_t>(s)].size();
    detail << " ["
           << to_string(sched.scheduler_of(s).schedule_for(last.tasks(s) /
                                                           std::max<std::size_t>(claims, 1)))
           << "]";
  }
}

//! Benchmarks one workload: `make(pointers)` builds its program over output arrays.
template <class Program, class Make>
void bench_workload(const std::string& name, task_id count, int outputs, Make make,
                    const multi_options& opt, int visible, std::vector<multi_row>& rows) {
  using namespace multi_gpu;
  const int most = std::min(visible, *std::max_element(opt.gpus.begin(), opt.gpus.end()));
  gpu_outputs out(most, outputs, count);
  const baseline_run base = bench_baseline<Program>(name, count, make, out, opt, rows);
  const double baseline = base.ms;
  for (const int g : opt.gpus) {
    if (g > visible) {
      std::printf("%-7s %d GPUs: skipped, %d visible\n", name.c_str(), g, visible);
      continue;
    }
    for (const std::string& variant : opt.variants) {
      if (g == 1 && variant != "dynamic") continue;  // one GPU: one path
      // Each variant calibrates its claims afresh, as a process that runs only it would: claims
      // of one size class but another layout would otherwise share its calibration.
      microsched::detail::forget_calibrations();
      multi_scheduler<Program> sched(variant_arguments(variant, g, base.chosen));
      const auto factory = [&](device_slot s) { return make(out.of(s.device)); };
      const variant_runs runs = time_variant(sched, factory, count, opt);
      const multi_run& last = runs.last;
      const double ms = median(runs.times);
      std::ostringstream detail;
      describe_runs(detail, sched, runs, count);
      if (opt.check) {
        std::vector<std::uint32_t> got(count, 0xffffffffu);
        std::vector<const std::uint32_t*> firsts;
        for (const int d : sched.devices()) firsts.push_back(out.of(d)[0]);
        copy_claimed(last, sched.devices(), firsts, got.data());
        if (got != base.want) {
          throw std::runtime_error(name + " on " + std::to_string(g) + " GPUs (" + variant +
                                   "): outputs differ from one GPU's");
        }
        detail << "; outputs equal";
      }
      rows.push_back({name, g, variant, ms, baseline / ms, detail.str()});
      std::printf("%-7s %d GPUs %-12s %.3f ms  %.2fx  %s\n        %s\n        GPU 0: %s\n",
                  name.c_str(), g, variant.c_str(), ms, baseline / ms, detail.str().c_str(),
                  sched.report(count).c_str(),
                  sched.scheduler_of(0)
                      .report(last.tasks(0) / std::max<std::size_t>(last.claims()[0].size(), 1))
                      .c_str());
      std::fflush(stdout);
    }
  }
}

void bench_julia(const multi_options& opt, int visible, std::vector<multi_row>& rows);
void bench_walks(const multi_options& opt, int visible, std::vector<multi_row>& rows);
void bench_skewed(const multi_options& opt, int visible, std::vector<multi_row>& rows);

}  // namespace microsched::bench
