// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file switching_cli.hpp
//! What the switching samples share: their options (the task pools and the context switching),
//! the timing of both microsched drivers, and the report rows.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "microsched/measure/timing_stats.hpp"
#include "registry_cli.hpp"
#include "sample_cli.hpp"
#include "switching_workloads.hpp"

namespace microsched::samples {

struct switching_cli {
  //! automatic: the automatic switching schedule (the default); otherwise a fixed schedule with
  //! the options below.
  std::string strategy = "automatic";
  std::uint64_t chunk = 32;
  int blocks_per_sm = 0;
  int contexts = 0;      //!< add_to sets the default of the sample's registry table
  int switch_every = 0;  //!< add_to sets the default of the sample's registry table
  int default_then = 0;
  bool fifo = false;
  int repetitions = 5;

  //! The default: the automatic switching schedule, which times direct and switching forms.
  [[nodiscard]] bool automatic() const { return strategy == "automatic"; }

  //! --contexts and --switch-every are the registry's tunables of the sample's workload, with the
  //! defaults and help of `registry` (registry_option.hpp).
  void add_to(CLI::App& app, const registry_options& registry) {
    add_strategy_option(app, strategy);
    programs::add_checked(app, "--chunk", chunk, "tasks per grab from the global pool",
                          std::uint64_t{1}, std::uint64_t{1} << 30);
    programs::add_checked(
        app, "--blocks-per-sm", blocks_per_sm,
        "resident blocks of 128 threads per SM; 0 = automatic (4, more where a lane would "
        "hold more than 8 tasks; never more than fit). Fewer warps give each warp more tasks "
        "to choose contexts from",
        0, 32);
    add_registry_listed(app, registry, "--contexts", contexts,
                        switching_workloads::compiled_pool_sizes());
    add_registry_checked(app, registry, "--switch-every", switch_every, 1, 1 << 20);
    programs::add_checked(app, "--default-then", default_then,
                          "default path on deferred visits: 1 the branch (then), 0 past it (else)",
                          0, 1);
    app.add_flag("--fifo,!--lifo", fifo,
                 std::string("resume parked contexts first in first out (rings), or last in first "
                             "out (--lifo: the stacks of frey2012's branch map); default: ") +
                     (fifo ? "--fifo" : "--lifo"));
    add_repetitions_option(app, repetitions);
  }

  [[nodiscard]] switching_workloads::variant variant() const {
    switching_workloads::variant v;
    // Under automatic the fixed rows (termination only, --verify of a variant) take hybrid pools.
    v.schedule.strategy = automatic() ? pool_strategy::hybrid : parse_pool_strategy(strategy);
    v.schedule.chunk = chunk;
    v.schedule.blocks_per_sm = blocks_per_sm;
    v.contexts_per_warp = contexts;
    v.schedule.switching.switch_every = switch_every;
    v.schedule.switching.default_then = default_then != 0 ? 0xffffffffu : 0u;
    v.schedule.switching.fifo = fifo;
    validate(v.schedule);
    validate_repetitions(repetitions);
    return v;
  }

  //! Every kernel is timed after one warm-up run.
  [[nodiscard]] timing_options timing() const { return {1, repetitions}; }
};

//! A timing row; names are padded for "microsched context switching".
inline void print_time(const std::string& name, const timing_stats& t, double vanilla_ms) {
  print_time(name, t, vanilla_ms, 34);
}

//! The times of microsched's two drivers on one workload.
struct scheduled_times {
  timing_stats termination;  //!< the termination-only persistent driver
  timing_stats switching;    //!< context switching, the managed branches on whole warps
};

//! Times the termination-only driver, then context switching. The termination driver sizes its
//! grid from occupancy: --blocks-per-sm sets how many tasks each switching warp chooses its
//! contexts from, which that driver does not do.
template <class Runner>
scheduled_times time_scheduled(Runner& runner, const switching_workloads::variant& v,
                               const timing_options& options) {
  schedule_arguments termination = v.schedule;
  termination.blocks_per_sm = 0;
  return {runner.time_termination(termination, options), runner.time_switching(v, options)};
}

//! The rows of both drivers, after the sample's vanilla rows.
inline void print_scheduled(const scheduled_times& t, double vanilla_ms) {
  print_time("microsched termination only", t.termination, vanilla_ms);
  print_time("microsched context switching", t.switching, vanilla_ms);
}

//! The default's rows: the fastest direct form it timed and its choice, timed in turns, and the
//! choice against the best direct form (the promise: never slower beyond noise).
inline void print_default(const switching_workloads::default_times& d, double vanilla_ms) {
  print_time("best direct form", d.best_direct, vanilla_ms);
  print_time("microsched default", d.chosen, vanilla_ms);
  std::printf("  default: %s, %.3fx the best direct form (%s)\n  %s\n", d.choice.c_str(),
              d.best_direct.median_ms / d.chosen.median_ms, d.direct_form.c_str(),
              d.report.c_str());
}

//! The switching options in effect and the switching kernel's registers and memory.
template <class Runner>
void print_switching(Runner& runner, const switching_workloads::variant& v) {
  std::printf("  switching: %s\n  kernel: %s\n", switching_workloads::to_string(v).c_str(),
              runner.resources(v).c_str());
}

}  // namespace microsched::samples
