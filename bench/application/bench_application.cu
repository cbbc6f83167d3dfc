// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The application benchmark: what a user's own loop gets from the default schedule, end to end.
// Each scenario runs in a process of its own (scripts/application-bench runs them all); every
// call is timed on the host around launch + synchronise, construction and first-call kernel
// loading included, and its output is compared with vanilla's. Beside the default, each call
// runs vanilla, the library's two direct forms and every automatic candidate as a fixed
// schedule, so the report gives the per-call oracle (the best candidate of each call), and vanilla
// a second time, so the report gives what one reading's noise alone puts below 0.98x.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numbers>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "baselines/vanilla.cuh"
#include "checked_cli.hpp"
#include "julia/julia_program.cuh"
#include "microsched/device_buffer.hpp"
#include "microsched/error.hpp"
#include "microsched/io/atomic_file.hpp"
#include "microsched/schedule/calibration.hpp"
#include "microsched/scheduler.cuh"
#include "montecarlo/montecarlo_program.cuh"
#include "output_path.hpp"
#include "pathtrace/pathtrace_program.cuh"
#include "program_main.hpp"

namespace {

using microsched::task_id;

//! Loads this program's module before any timed call, so that neither vanilla nor the default
//! pays for the other's kernels; each still pays for loading its own.
__global__ void load_module() {}
using clock_type = std::chrono::steady_clock;

struct options {
  std::string scenario = "animation";
  int calls = 0;  // 0: the scenario's own count
  int size = 0;   // 0: the scenario's own image side
  bool double_precision = false;
  bool oracle = true;
  std::string csv;
};

//! Milliseconds of host wall time around `body` and a synchronise.
template <class Body>
double wall_ms(Body&& body) {
  const auto start = clock_type::now();
  body();
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

//! One call's program for a scenario's call `i`.
template <class T>
struct julia_frames {
  std::string kind;
  int side = 2048;
  int calls = 120;
  double zoom_x = 0, zoom_y = 0;

  microsched::kernels::julia_program<T> program(int i, std::uint32_t* out) const {
    microsched::kernels::julia_program<T> p;
    p.crunch = kind == "drift" ? 1024 : 4096;
    p.out = out;
    double cx = microsched::kernels::julia_islands.cx, cy = microsched::kernels::julia_islands.cy;
    double center_x = 0, center_y = 0, span = 3.2;
    if (kind == "animation") {
      // c on a circle through long-task (interior) and short-task (escaping) parameters.
      const double a = 2 * std::numbers::pi * i / calls;
      cx = 0.7885 * std::cos(a);
      cy = 0.7885 * std::sin(a);
    } else if (kind == "zoom") {
      span = 3.2 * std::pow(0.97, i);
      center_x = zoom_x * (1 - span / 3.2);
      center_y = zoom_y * (1 - span / 3.2);
    } else {  // drift: c moves slowly, an iterative method's changing data
      const double a = 2.2 + 0.0004 * i;
      cx = 0.7885 * std::cos(a);
      cy = 0.7885 * std::sin(a);
    }
    p.cx = static_cast<T>(cx);
    p.cy = static_cast<T>(cy);
    p.view = {static_cast<T>(center_x),
              static_cast<T>(center_y),
              static_cast<T>(span / side),
              side,
              side,
              microsched::task_index_2d(side, side)};
    return p;
  }
};

//! The zoom's target: the pixel of a coarse whole view with the longest orbit below the crunch
//! (a point on the boundary, where detail lasts as the view shrinks).
std::pair<double, double> zoom_target() {
  const auto view = microsched::kernels::make_julia_view<double>(256, 256, 0);
  std::uint32_t best = 0;
  std::pair<double, double> at{0, 0};
  for (int y = 0; y < 256; ++y) {
    for (int x = 0; x < 256; ++x) {
      const std::uint32_t n = microsched::kernels::julia_escape_time<double>(
          view, microsched::kernels::julia_islands.cx, microsched::kernels::julia_islands.cy, 1024,
          x, y);
      if (n < 1024 && n > best) {
        best = n;
        at = {(x + 0.5 - 128) * view.pixel_size, (y + 0.5 - 128) * view.pixel_size};
      }
    }
  }
  return at;
}

struct series {
  std::string name;
  std::vector<double> ms;
  [[nodiscard]] double total() const {
    double s = 0;
    for (double v : ms) s += v;
    return s;
  }
};

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

//! The fixed schedules timed beside the default: every candidate with the oracle, else none.
std::vector<microsched::schedule_arguments> fixed_schedules(bool oracle) {
  std::vector<microsched::schedule_arguments> fixed;
  if (oracle) fixed = microsched::automatic_candidates(false, {}, true, 128);
  return fixed;
}

//! The calls of one scenario: vanilla's output is the reference, and every other run's output
//! is checked against it. `make(i, out)` is call i's program writing to `out`.
template <class Program, class Make>
struct scenario_run {
  using scheduler_type = microsched::scheduler<Program>;

  task_id tasks;
  std::size_t words;
  Make& make;
  microsched::device_buffer<std::uint32_t> reference, out;
  std::vector<std::uint32_t> want, got;
  std::vector<microsched::schedule_arguments> fixed;
  series vanilla{"vanilla", {}}, automatic{"default", {}};
  //! Vanilla again, timed like the default in the shuffled order: the noise floor of its ratios.
  series again{"vanilla again", {}};
  std::vector<series> oracle;  //!< one per fixed schedule
  std::unique_ptr<scheduler_type> sched;
  std::vector<std::unique_ptr<scheduler_type>> fixed_sched;
  int mismatches = 0;
  double construction_ms = 0;  //!< the default's scheduler, built in its first call

  scenario_run(bool with_oracle, task_id count, int outputs_per_task, Make& call_program)
      : tasks(count),
        words(static_cast<std::size_t>(count) * outputs_per_task),
        make(call_program),
        reference(words),
        out(words),
        want(words),
        got(words),
        fixed(fixed_schedules(with_oracle)),
        oracle(fixed.size()),
        fixed_sched(fixed.size()) {
    for (std::size_t c = 0; c < fixed.size(); ++c) oracle[c].name = to_string(fixed[c]);
  }

  //! Compares the last run's output, copied to the host, with vanilla's.
  void check(const char* who, int i) {
    MICROSCHED_CUDA_TRY(cudaMemcpy(got.data(), out.data(), words * 4, cudaMemcpyDeviceToHost));
    if (got != want) {
      ++mismatches;
      std::fprintf(stderr, "call %d: %s differs from vanilla\n", i, who);
    }
  }

  // Every timed run follows the same steps (the previous run's output copied to the host and
  // compared, the output poisoned, a synchronise), and the default and the fixed schedules run in
  // a fresh random order each call: a run right after the same kernel finds its code in the
  // GPU's caches and gains a few microseconds, as much as calls of 25 us differ.
  template <class Body>
  void timed(series& s, int i, Body&& body) {
    out.fill_bytes(0xff);
    MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
    s.ms.push_back(wall_ms(body));
    check(s.name.c_str(), i);
  }

  //! Call i of vanilla, whose output the other runs of the call must equal.
  void run_vanilla(int i) {
    reference.fill_bytes(0xff);
    MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
    vanilla.ms.push_back(wall_ms(
        [&] { microsched::baselines::run_vanilla(make(i, reference.data()), tasks, nullptr); }));
    MICROSCHED_CUDA_TRY(
        cudaMemcpy(want.data(), reference.data(), words * 4, cudaMemcpyDeviceToHost));
  }

  //! Call i of runner r: 0 the default (its scheduler built in the timed call), 1 vanilla again,
  //! else fixed schedule r - 2.
  void run_runner(int r, int i) {
    if (r == 0) {
      timed(automatic, i, [&] {
        if (!sched) {
          const auto start = clock_type::now();
          sched = std::make_unique<scheduler_type>();
          construction_ms =
              std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
        }
        sched->run(make(i, out.data()), tasks);
      });
      return;
    }
    if (r == 1) {
      timed(again, i,
            [&] { microsched::baselines::run_vanilla(make(i, out.data()), tasks, nullptr); });
      return;
    }
    const std::size_t c = static_cast<std::size_t>(r - 2);
    timed(oracle[c], i, [&] {
      if (!fixed_sched[c]) fixed_sched[c] = std::make_unique<scheduler_type>(fixed[c]);
      fixed_sched[c]->run(make(i, out.data()), tasks);
    });
  }

  //! Every call: vanilla first, then the default, vanilla again and the fixed schedules in a
  //! shuffled order.
  void run_calls(int calls) {
    const int runners = 2 + static_cast<int>(fixed.size());  // the default, vanilla, each fixed
    std::vector<int> order(static_cast<std::size_t>(runners));
    std::iota(order.begin(), order.end(), 0);
    std::mt19937 shuffle(12345);
    for (int i = 0; i < calls; ++i) {
      std::shuffle(order.begin(), order.end(), shuffle);
      // The first call: the default right after vanilla, so that it loads its own kernels.
      if (i == 0) std::iter_swap(order.begin(), std::find(order.begin(), order.end(), 0));
      run_vanilla(i);
      for (int k = 0; k < runners; ++k) run_runner(order[static_cast<std::size_t>(k)], i);
    }
  }
};

//! What the default is compared with, over the whole scenario.
struct scenario_bests {
  series best{"oracle", {}};  //!< the per-call oracle: each call's fastest run
  double best_direct = 0;     //!< the best direct form in total (vanilla, direct, strided)
  std::string best_direct_name;
  double best_fixed = 0;  //!< the best fixed schedule in total
  std::string best_fixed_name;
  //! Each call on the run fastest at the call before (the first on vanilla): the most a rule that
  //! learns from the previous call reaches, with its timing free.
  double previous_best = 0;
};

//! The per-call oracle and the best direct and fixed schedules of the runs.
scenario_bests bests_of(const series& vanilla, const std::vector<series>& oracle,
                        const std::vector<microsched::schedule_arguments>& fixed, int calls) {
  scenario_bests r;
  r.best.ms.resize(static_cast<std::size_t>(calls));
  const series* previous = &vanilla;
  for (int i = 0; i < calls; ++i) {
    r.previous_best += previous->ms[i];
    previous = &vanilla;
    for (const series& s : oracle) {
      if (s.ms[i] < previous->ms[i]) previous = &s;
    }
    r.best.ms[i] = previous->ms[i];
  }
  r.best_direct = vanilla.total();
  r.best_direct_name = "vanilla";
  for (std::size_t c = 0; c < fixed.size(); ++c) {
    if (microsched::is_direct_form(fixed[c].strategy) && oracle[c].total() < r.best_direct) {
      r.best_direct = oracle[c].total();
      r.best_direct_name = oracle[c].name;
    }
  }
  r.best_fixed = r.best_direct;
  r.best_fixed_name = r.best_direct_name;
  for (std::size_t c = 0; c < fixed.size(); ++c) {
    if (oracle[c].total() < r.best_fixed) {
      r.best_fixed = oracle[c].total();
      r.best_fixed_name = oracle[c].name;
    }
  }
  return r;
}

//! The totals against vanilla, the best direct form and (with the oracle) the best schedules.
void print_totals(const options& o, const series& vanilla, const series& automatic,
                  const scenario_bests& b) {
  std::printf("total ms: vanilla %.3f, best direct %.3f (%s), default %.3f", vanilla.total(),
              b.best_direct, b.best_direct_name.c_str(), automatic.total());
  if (o.oracle) {
    std::printf(
        ", oracle %.3f, best fixed %.3f (%s), the previous call's best %.3f (%.1f%% of the "
        "oracle's speed)",
        b.best.total(), b.best_fixed, b.best_fixed_name.c_str(), b.previous_best,
        100 * b.best.total() / b.previous_best);
  }
  std::printf("\ndefault: %.3fx vanilla, %.3fx best direct", vanilla.total() / automatic.total(),
              b.best_direct / automatic.total());
  if (o.oracle) {
    std::printf(", %.1f%% of the oracle's speed, %.1f%% of the best fixed schedule's",
                100 * b.best.total() / automatic.total(), 100 * b.best_fixed / automatic.total());
  }
}

//! A run's ratios to vanilla call by call, and how many fall short of the per-call targets.
struct per_call {
  std::vector<double> ratio;
  int below = 0;     //!< calls below 0.98x vanilla
  int below_08 = 0;  //!< calls after the first below 0.8x

  per_call(const series& vanilla, const series& run, int calls)
      : ratio(static_cast<std::size_t>(calls)) {
    for (int i = 0; i < calls; ++i) {
      ratio[i] = vanilla.ms[i] / run.ms[i];
      below += ratio[i] < 0.98;
      below_08 += i > 0 && ratio[i] < 0.8;
    }
  }
};

//! The default against vanilla call by call: the spread of the ratios and the slow calls, and
//! the same counts for vanilla's second run (what one reading's noise gives a run equal to it).
void print_per_call(const series& vanilla, const series& automatic, const series& again,
                    int calls) {
  const per_call d(vanilla, automatic, calls), a(vanilla, again, calls);
  double faster_of_two = 0;  // each call's faster vanilla reading: what a minimum gains from noise
  for (int i = 0; i < calls; ++i) faster_of_two += std::min(vanilla.ms[i], again.ms[i]);
  std::printf(
      "\nper call vs vanilla: min %.3f, p5 %.3f, median %.3f; first call %.3f; %d of %d "
      "below 0.98x, %d after the first below 0.8x\n",
      *std::min_element(d.ratio.begin(), d.ratio.end()), percentile(d.ratio, 0.05),
      percentile(d.ratio, 0.5), d.ratio[0], d.below, calls, d.below_08);
  std::printf(
      "vanilla again vs vanilla (the noise floor): p5 %.3f, median %.3f; %d of %d below 0.98x, "
      "%d after the first below 0.8x; the faster of the two readings of each call totals "
      "%.1f%% of vanilla's time\n",
      percentile(a.ratio, 0.05), percentile(a.ratio, 0.5), a.below, calls, a.below_08,
      100 * faster_of_two / vanilla.total());
}

//! --csv: one row per call, a column per runner; written whole or not at all.
void write_csv(const std::string& path, const series& vanilla, const series& automatic,
               const std::vector<series>& oracle, const series& again, int calls) {
  std::ostringstream f;
  f << "call,vanilla,default";
  for (const series& s : oracle) f << ",\"" << s.name << '"';
  f << ",\"" << again.name << "\"\n";
  for (int i = 0; i < calls; ++i) {
    f << i << ',' << vanilla.ms[i] << ',' << automatic.ms[i];
    for (const series& s : oracle) f << ',' << s.ms[i];
    f << ',' << again.ms[i] << '\n';
  }
  microsched::write_file_atomically(path, f.str());
}

//! Runs `calls` calls of `make(i, out)`: vanilla, the default, and (with the oracle) the direct
//! forms and every candidate as fixed schedules. Checks every run's output against vanilla's.
template <class Program, class Make>
int run_scenario(const options& o, const std::string& title, task_id tasks, int calls,
                 int outputs_per_task, Make&& make) {
  scenario_run<Program, std::remove_reference_t<Make>> run(o.oracle, tasks, outputs_per_task, make);
  run.run_calls(calls);
  const scenario_bests bests = bests_of(run.vanilla, run.oracle, run.fixed, calls);
  std::printf("== %s: %d calls, %s\n", o.scenario.c_str(), calls, title.c_str());
  print_totals(o, run.vanilla, run.automatic, bests);
  print_per_call(run.vanilla, run.automatic, run.again, calls);
  std::printf("first call: vanilla %.3f ms, default %.3f ms (its construction %.3f ms)\n",
              run.vanilla.ms[0], run.automatic.ms[0], run.construction_ms);
  std::printf("choice: %s\n", run.sched->report(tasks).c_str());
  std::printf("outputs: %s\n",
              run.mismatches == 0 ? "every run of every schedule equal to vanilla" : "MISMATCH");
  if (!o.csv.empty()) write_csv(o.csv, run.vanilla, run.automatic, run.oracle, run.again, calls);
  return run.mismatches == 0 ? 0 : microsched::programs::failure_exit_code;
}

template <class T>
int run_julia(const options& o) {
  julia_frames<T> frames;
  frames.kind = o.scenario;
  frames.side = o.size > 0 ? o.size : 2048;
  frames.calls = o.calls > 0 ? o.calls : (o.scenario == "drift" ? 1000 : 120);
  if (o.scenario == "zoom") std::tie(frames.zoom_x, frames.zoom_y) = zoom_target();
  const task_id tasks = static_cast<task_id>(frames.side) * frames.side;
  const std::string title = "julia " + std::to_string(frames.side) + "^2 " +
                            (sizeof(T) == 8 ? "double" : "float") + " crunch " +
                            std::to_string(frames.program(0, nullptr).crunch);
  return run_scenario<microsched::kernels::julia_program<T>>(
      o, title, tasks, frames.calls, 1,
      [&](int i, std::uint32_t* out) { return frames.program(i, out); });
}

//! One call of the path tracer (kernels/pathtrace): heavy contexts, 16 paths per pixel.
int run_heavy(const options& o) {
  microsched::kernels::pathtrace_program p;
  p.width = p.height = static_cast<std::uint32_t>(o.size > 0 ? o.size : 1024);
  p.spp = 16;
  const task_id tasks = task_id{p.width} * p.height * p.spp;
  return run_scenario<microsched::kernels::pathtrace_program>(
      o, "pathtrace " + std::to_string(p.width) + "^2, 16 paths per pixel, one call", tasks, 1, 2,
      [&](int, std::uint32_t* out) {
        microsched::kernels::pathtrace_program q = p;
        q.luminance_out = out;
        q.bounces_out = out + tasks;
        return q;
      });
}

//! One-shot and long calls: a single call per process (the cache, if any, comes from an earlier
//! process).
int run_single(const options& o) {
  if (o.scenario == "oneshot") {
    const int side = o.size > 0 ? o.size : 4096;
    const auto view = microsched::kernels::make_julia_view<double>(side, side, 0);
    const task_id tasks = static_cast<task_id>(side) * side;
    return run_scenario<microsched::kernels::julia_program<double>>(
        o, "julia " + std::to_string(side) + "^2 double crunch 4096, islands", tasks, 1, 1,
        [&](int, std::uint32_t* out) {
          microsched::kernels::julia_program<double> p;
          p.view = view;
          p.out = out;
          return p;
        });
  }
  const task_id tasks = task_id{1} << (o.size > 0 ? o.size : 24);
  std::uint32_t* sums = nullptr;
  return run_scenario<microsched::kernels::montecarlo_program>(
      o, "Monte Carlo walks, kill 0.001, 2^" + std::to_string(o.size > 0 ? o.size : 24) + " tasks",
      tasks, 1, 2, [&](int, std::uint32_t* out) {
        microsched::kernels::montecarlo_program p;
        p.kill_probability = 0.001f;
        p.steps_out = out;
        p.sum_out = out + tasks;
        (void)sums;
        return p;
      });
}

}  // namespace

int main(int argc, char** argv) {
  return microsched::programs::run_main("bench_application", [&] {
    options o;
    CLI::App app{
        "The default schedule in an application's own loop: host wall time per call, "
        "construction and first calls included, against vanilla, the best direct form and the "
        "per-call oracle (the best candidate schedule of each call). Run each scenario in a "
        "fresh process; MICROSCHED_CACHE_DIR chooses the calibration cache's folder (none: "
        "MICROSCHED_CACHE=off)."};
    app.add_option("--scenario", o.scenario,
                   "animation (Julia 2048^2, c on a circle, crunch 4096, 120 calls), zoom (120 "
                   "calls, 3% a call), "
                   "drift (1000 calls on slowly drifting c, crunch 1024), oneshot (one call, "
                   "4096^2 double), "
                   "long (one call, Monte Carlo walks 2^24), heavy (one call, the path tracer "
                   "at 1024^2, 16 paths per pixel: 104-byte contexts)")
        ->check(CLI::IsMember({"animation", "zoom", "drift", "oneshot", "long", "heavy"}));
    app.add_option("--calls", o.calls, "calls (0: the scenario's own)")
        ->check(CLI::Range(0, 100000));
    app.add_option("--size", o.size, "image side, or log2 of the walks (0: the scenario's own)")
        ->check(CLI::Range(0, 16384));
    app.add_flag("--double", o.double_precision, "double precision (animation, zoom, drift)");
    app.add_flag("!--no-oracle", o.oracle,
                 "skip the fixed schedules (the default and vanilla, twice, only)");
    app.add_option("--csv", o.csv, "per-call times in ms to this file");
    MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);
    if (o.scenario == "long" && o.size > 30)
      throw std::invalid_argument("--size " + std::to_string(o.size) + ": at most 30 for long");
    if (o.scenario == "heavy" && o.size > 4096)
      throw std::invalid_argument("--size " + std::to_string(o.size) + ": at most 4096 for heavy");
    if (!o.csv.empty()) microsched::programs::validate_output_file("--csv", o.csv);
    microsched::programs::require_gpu();
    MICROSCHED_CUDA_TRY(cudaFree(nullptr));  // the context, outside every timed call
    load_module<<<1, 1>>>();
    MICROSCHED_CHECK_LAUNCH("load_module");
    MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
    if (o.scenario == "oneshot" || o.scenario == "long") return run_single(o);
    if (o.scenario == "heavy") return run_heavy(o);
    return o.double_precision ? run_julia<double>(o) : run_julia<float>(o);
  });
}
