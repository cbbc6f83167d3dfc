// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "sweep/cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

#include "microsched/error.hpp"
#include "microsched/io/atomic_file.hpp"
#include "microsched/sweep/tuning_file.hpp"
#include "microsched/version.hpp"
#include "sweep/plots.hpp"
#include "sweep/progress.hpp"
#include "sweep/report.hpp"

namespace microsched::sweep {

namespace fs = std::filesystem;

namespace {

constexpr const char* journal_name = "results.jsonl";

const std::string footer = R"(
Parameters (NAME=VALUES, any number of them):
  schedule:  strategy=local,private_pools,hybrid,warp_range,budgeted   fetch=any,all,ballot:N
             chunk=N   deferral=N   blocks-per-sm=N|auto   budget=N (budgeted)   period=4,8
             (warp_range); for workloads that take a schedule. A field no swept strategy reads is
             refused; points that differ only in fields their strategy ignores run once.
  tunables:  the workload's own settings per point (see --list), e.g. contexts=64,128
             switch-every=1,4 (switching), method=hot,dgi neighbouring=4,16,64 (remap),
             depth=1:4 helpers=1,2,4 method=auto (pipeline)
  workload:  its options (see --list), e.g. crunch=4096,16384 offset=0,1,2 precision=float,double;
             several values make several scenarios (every combination).
  Unswept schedule fields keep the library defaults:
    )";

const char* const footer_values = R"(

Values: a comma list of items; an item is a value or a range:
  lo:hi        every integer        blocks-per-sm=1:16
  lo:hi:S      step S (or +S)       chunk=256:4096:256
  lo:hi:xF     times F              chunk=1:4096:x2    deferral=1:64:x2
  P:lo..hi     prefixed range       fetch=any,all,ballot:1..32   fetch=ballot:1..32:x2
  decimal ranges work for workload options: kill=0.1:0.9:+0.2

Output (in --out): results.jsonl (journal, one line per finished point), sweep.csv, sweep.json,
summary.txt, and, drawn by plot_sweep.py from sweep.json, heatmap-<scenario>.png and
speedup-<scenario>.png.

Examples:
  sweep julia chunk=1:4096:x2 deferral=1:64:x2 strategy=local,private_pools,hybrid offset=0,1,2
  sweep julia --out julia-sweep --resume ...same parameters...    (continue a stopped sweep)
  sweep montecarlo strategy=hybrid fetch=any,all,ballot:1..32:x2 --save-tuning tuning.txt
  sweep julia strategy=budgeted budget=32,48,64,128 chunk=1,8,32
  sweep raycast contexts=64,128 switch-every=1,4 strategy=hybrid chunk=32
  sweep micro-branch paths=4 method=original,dgi neighbouring=4,16,64
  sweep gafort depth=1:3 helpers=1,2,4
Plots: the sweep writes them with plot_sweep.py (python3 with matplotlib) from sweep.json;
without python3 or matplotlib it prints the command to run where they are.
Exit codes: 0 done, 1 a point failed its exactly-once check, 2 bad input, 77 no GPU (nothing
was run), 130 interrupted.)";

void list_workloads(const cli_environment& env) {
  for (const auto& name : env.workload_names()) {
    const auto traits = env.factory.traits_of(name);
    *env.out << name << "  (" << traits.area
             << (traits.takes_schedule ? "; takes the schedule" : "; no schedule") << ")\n";
    const auto note = reference_note(traits);
    if (!note.empty()) *env.out << "  references: " << note << "\n";
    for (const auto& p : env.factory.parameters(name)) {
      *env.out << "  " << p.name << "=" << p.default_value << "  " << p.help << "\n";
    }
    for (const auto& p : env.factory.tunables_of(name)) {
      *env.out << "  " << p.name << "=" << p.default_value << "  (tunable) " << p.help << "\n";
    }
  }
}

//! Checks every scenario's options with every combination of the swept tunables, so that bad
//! values (offset=7, contexts=48) are refused now, before the GPU is looked for and not hours
//! into a sweep. With the factory's host-only check that is all; without one, each scenario's
//! workload is built once: a registered workload parses its options before it touches the
//! device, so a device error after that means the options passed, and the GPU is checked next.
void validate_scenarios(const sweep_plan& plan, const workload_factory& factory) {
  const auto settings = plan.settings();
  for (const auto& options_of : plan.scenarios()) {
    try {
      if (factory.validate) {
        for (const auto& s : settings) {
          options_map all = options_of;
          all.insert(s.tunables.begin(), s.tunables.end());
          factory.validate(plan.workload, all);
        }
        continue;
      }
      (void)factory.make(plan.workload, options_of);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("scenario '" + scenario_key(plan.workload, options_of) +
                                  "': " + e.what());
    } catch (const no_device_error&) {
    } catch (const cuda_error&) {
    }
  }
}

void print_plan(const sweep_plan& plan, std::ostream& out) {
  const auto scenarios = plan.scenarios();
  const auto settings = plan.settings().size();
  out << scenarios.size() << " scenario(s) x " << settings
      << " setting(s) = " << scenarios.size() * settings << " points\n";
  if (const double all = plan.combinations();
      all > static_cast<double>(scenarios.size() * settings)) {
    out << "  (" << static_cast<std::uint64_t>(all) - scenarios.size() * settings
        << " combination(s) left out: they differ only in fields their strategy ignores)\n";
  }
  for (const auto& s : scenarios) out << "  scenario " << scenario_key(plan.workload, s) << "\n";
  if (!plan.takes_schedule) out << "  (no schedule: the workload runs without the scheduler)\n";
  for (const auto* axes : {&plan.schedule_axes, &plan.tunable_axes}) {
    for (const auto& a : *axes) {
      out << "  " << a.name << ":";
      for (const auto& v : a.values) out << " " << v;
      out << "\n";
    }
  }
}

//! The plot axes: the user's where given, else default_axes(); checked against the workload.
void choose_axes(heatmap_axes& axes, bool x_given, bool y_given, const sweep_plan& plan,
                 const workload_factory& factory) {
  std::vector<std::string> tunables;
  for (const auto& p : factory.tunables_of(plan.workload)) tunables.push_back(p.name);
  const heatmap_axes fallback = default_axes(plan.tunable_names(), tunables, plan.takes_schedule);
  if (!x_given) axes.x = fallback.x;
  if (!y_given) axes.y = fallback.y;
  axes.line = plan.takes_schedule ? "chunk" : axes.x;
  validate(axes, tunables, plan.takes_schedule);
}

//! The tuning file holds schedules; a point that differs by its tunables cannot be stored there.
void validate_tuning_fits(const sweep_plan& plan) {
  if (!plan.takes_schedule) {
    throw std::invalid_argument("--save-tuning: workload " + plan.workload +
                                " takes no schedule, and the tuning file holds schedules only");
  }
  if (!plan.tunable_axes.empty()) {
    throw std::invalid_argument(
        "--save-tuning: the tuning file holds schedules only, and this sweep's points differ by "
        "the tunable '" +
        plan.tunable_axes.front().name + "'; sweep the schedule alone to store it");
  }
}

//! Runs plot_sweep.py on the outputs. Without python3 or matplotlib it prints the command to run
//! where they are and the sweep still succeeds; a failing script is an error.
bool draw_plots(const std::string& folder, const heatmap_axes& axes, const cli_environment& env) {
  env.out->flush();
  const auto command = plot_command(folder, axes);
  const int rc = run_command(command);
  if (rc == 0) return true;
  if (rc == 127 || rc == plot_no_matplotlib) {
    *env.err << "note: no plots: " << (rc == 127 ? command[0] + " not found" : "no matplotlib")
             << "; draw them where python3-matplotlib is installed with:\n  " << shell_line(command)
             << "\n";
    return true;
  }
  *env.err << "sweep: error: the plots failed (exit " << rc << "): " << shell_line(command) << "\n";
  return false;
}

//! The command line, as parsed.
struct sweep_command {
  std::string workload;
  std::vector<std::string> params;
  std::string out_dir = "sweep-out";
  bool resume = false, overwrite = false, no_plots = false, list = false, dry_run = false;
  bool quiet = false;
  timing_options timing;
  heatmap_axes axes;
  std::string tuning_file;
  CLI::Option* heatmap_x = nullptr;  //!< counted: a given axis is checked even with --no-plots
  CLI::Option* heatmap_y = nullptr;
};

//! Every option, in the order --help lists them, the footer and --version.
void add_options(CLI::App& app, sweep_command& c) {
  app.name("sweep");
  app.footer(footer + schedule_text(schedule_arguments{}) + "\n  At most " +
             std::to_string(max_points) + " points a sweep." + footer_values);
  app.add_option("workload", c.workload, "Registered workload to sweep (see --list)");
  app.add_option("parameters", c.params, "NAME=VALUES ranges (see below)");
  app.add_option("-o,--out", c.out_dir, "Folder for the journal, CSV, JSON and PNGs")
      ->capture_default_str();
  auto* resume_flag = app.add_flag(
      "--resume", c.resume, "Continue the sweep journaled in --out: run only what is missing");
  app.add_flag("--overwrite", c.overwrite, "Start again, discarding the journal in --out")
      ->excludes(resume_flag);
  app.add_option("--warmup", c.timing.warmup, "Untimed runs before each timing")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  app.add_option("--repetitions", c.timing.repetitions,
                 "Timed runs per point; the median is reported")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  c.heatmap_x =
      app.add_option("--heatmap-x", c.axes.x,
                     "Heat map columns: chunk, deferral, fetch, blocks-per-sm, budget, period or a "
                     "tunable "
                     "(default: chunk, or the first tunable where the schedule does not apply)");
  c.heatmap_y = app.add_option("--heatmap-y", c.axes.y,
                               "Heat map rows (default: deferral, or the second tunable)");
  app.add_flag("--no-plots", c.no_plots, "Write no PNGs");
  app.add_option("--save-tuning", c.tuning_file,
                 "Store the best settings in this tuning file, a text file merged with what it "
                 "holds and written atomically (keyed by GPU and workload; read back by the "
                 "samples' --tuned and microsched::sweep::tuned_schedule)");
  app.add_flag("--list", c.list, "List the workloads and their options, then exit");
  app.add_flag("--dry-run", c.dry_run, "Print the plan (scenarios, schedules, points), then exit");
  app.add_flag("-q,--quiet", c.quiet, "No progress bar");
  app.set_version_flag("--version", std::string("sweep (microsched) ") + version_string);
}

//! Parses `args`; returns the exit code when the program ends here (--help, --version, an
//! error, each reported), else nothing.
std::optional<int> parse_command_line(CLI::App& app, const std::vector<std::string>& args,
                                      const cli_environment& env) {
  std::vector<std::string> argv_reversed(args.rbegin(), args.rend());
  try {
    app.parse(argv_reversed);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      std::ostringstream o, err;
      (void)app.exit(e, o, err);
      *env.out << o.str();
      return exit_ok;
    }
    *env.err << "sweep: error: " << e.what() << " (see --help)\n";
    return exit_bad_input;
  }
  return std::nullopt;
}

//! The plan of the command, with everything checked that can be without a GPU: the workload,
//! the parameters, the plot axes, the tuning file, the output places and the scenarios.
sweep_plan checked_plan(sweep_command& c, const cli_environment& env) {
  if (c.workload.empty()) throw std::invalid_argument("no workload given (see --list)");
  const auto names = env.workload_names();
  if (std::find(names.begin(), names.end(), c.workload) == names.end()) {
    std::string known;
    for (const auto& n : names) known += " " + n;
    throw std::invalid_argument("workload '" + c.workload + "' is not registered; known:" + known);
  }
  sweep_plan plan = plan_for(c.workload, c.params, env.factory);
  if (!c.no_plots || c.heatmap_x->count() + c.heatmap_y->count() > 0) {
    choose_axes(c.axes, c.heatmap_x->count() > 0, c.heatmap_y->count() > 0, plan, env.factory);
  }
  if (!c.tuning_file.empty()) validate_tuning_fits(plan);
  if (!c.dry_run) {
    // The output places, before any device work and without creating anything: a sweep that
    // stops here (or for want of a GPU) leaves the file system as it was.
    require_writable_folder(c.out_dir);
    if (!c.tuning_file.empty()) {
      require_writable_file(c.tuning_file);
      (void)sweep::tuning_table::load_or_empty(c.tuning_file);  // refuse a broken file now
    }
  }
  validate_scenarios(plan, env.factory);
  return plan;
}

//! Runs the plan's missing points into the journal with a progress bar; returns exit_ok when
//! every point has finished, else the exit code, reported. Sets `running` before the first.
int run_points(const sweep_plan& plan, const sweep_command& c, journal& log,
               const fs::path& journal_path, const cli_environment& env, bool& running) {
  progress_bar bar(env.progress != nullptr ? env.progress : stderr, env.progress_interactive);
  run_options options;
  options.timing = c.timing;
  options.stop = env.stop;
  if (!c.quiet && env.progress != nullptr) {
    options.on_progress = [&](const progress_event& e) { bar.update(e); };
  }
  bool complete = false;
  running = true;
  try {
    complete = run_sweep(plan, env.factory, log, options);
  } catch (const verification_failed_error& e) {
    bar.finish();
    *env.err << "sweep: error: " << e.what() << " in " << journal_path.string()
             << "; no CSV, JSON or plots were written.\n";
    return exit_check_failed;
  } catch (...) {
    bar.finish();
    throw;
  }
  bar.finish();
  if (!complete) {
    *env.err << "stopped: the finished points are in " << journal_path.string()
             << "; run the same command with --resume to continue.\n";
    return exit_interrupted;
  }
  return exit_ok;
}

//! Writes the outputs of a finished sweep, the plots and the tuning file; returns the exit code.
int write_results(const sweep_plan& plan, const journal& log, const sweep_command& c,
                  const cli_environment& env) {
  const sweep_results results = collect_results(plan, log);
  const auto files = write_outputs(results, c.out_dir);
  *env.out << summary_text(results) << "\nwrote";
  for (const auto& f : files) *env.out << " " << f;
  *env.out << "\n";
  if (!c.no_plots && !draw_plots(c.out_dir, c.axes, env)) return exit_failed;
  if (!c.tuning_file.empty()) {
    const auto n = save_tuning(results, c.tuning_file);
    *env.out << "saved " << n << " tuned setting(s) to " << c.tuning_file << " (set "
             << sweep::tuning_file_variable << "=" << c.tuning_file
             << " to use them as the tuned default)\n";
  }
  return exit_ok;
}

//! The parsed command: --list, --dry-run or the sweep itself; returns the exit code and throws
//! what sweep_main reports. Sets `running` once the first point may have run.
int run_command(sweep_command& c, const cli_environment& env, bool& running) {
  if (c.list) {
    list_workloads(env);
    return exit_ok;
  }
  const sweep_plan plan = checked_plan(c, env);
  if (c.dry_run) {
    print_plan(plan, *env.out);
    return exit_ok;
  }

  // Last of the checks: everything above is refused without a GPU too.
  sweep_header header{c.workload, env.gpu_name(), c.timing, utc_now()};
  ensure_writable_folder(c.out_dir);
  const fs::path journal_path = fs::path(c.out_dir) / journal_name;
  journal log = c.resume ? journal::resume(journal_path, header)
                         : journal::create(journal_path, header, c.overwrite);
  if (log.repaired_lines() > 0) {
    *env.err << "note: cut off a torn last line in " << journal_path.string()
             << " (that point runs again)\n";
  }
  if (const int rc = run_points(plan, c, log, journal_path, env, running); rc != exit_ok) {
    return rc;
  }
  return write_results(plan, log, c, env);
}

}  // namespace

std::vector<std::string> write_outputs(const sweep_results& results, const std::string& folder) {
  std::vector<std::string> written;
  const auto put = [&](const std::string& name, const std::string& bytes) {
    const fs::path path = fs::path(folder) / name;
    write_file_atomically(path, bytes);
    written.push_back(path.string());
  };
  put("sweep.csv", to_csv(results));
  put("sweep.json", to_json_text(results));
  put("summary.txt", summary_text(results));
  return written;
}

std::size_t save_tuning(const sweep_results& results, const std::string& file) {
  auto table = sweep::tuning_table::load_or_empty(file);
  std::size_t count = 0;
  const std::string when = utc_now();
  const sweep_header& h = results.header;
  for (const auto& sc : results.scenarios) {
    const auto best = best_point(sc);
    if (!best) continue;
    const auto& p = sc.points[*best];
    table.set({h.gpu, h.workload, sc.baseline.scenario, p.schedule, p.time.median_ms,
               "best of " + std::to_string(sc.points.size()) + " points, sweep of " + when});
    ++count;
  }
  if (results.scenarios.size() > 1) {
    if (const auto c = best_constant(results)) {
      char loss[64];
      std::snprintf(loss, sizeof loss, "%.1f%%", c->worst_loss * 100);
      table.set({h.gpu, h.workload, "", c->schedule, 0,
                 "best constant over " + std::to_string(results.scenarios.size()) +
                     " scenarios (worst loss " + loss + "), sweep of " + when});
      ++count;
    }
  } else if (count == 1) {
    auto entry = *table.find_exact(h.gpu, h.workload, results.scenarios[0].baseline.scenario);
    entry.scenario = "";
    entry.note =
        "best of the one scenario " + results.scenarios[0].baseline.scenario + ", sweep of " + when;
    table.set(entry);
    ++count;
  }
  table.save(file);
  return count;
}

int sweep_main(const std::vector<std::string>& args, const cli_environment& env) {
  CLI::App app{
      "sweep: time a workload under every schedule in a range, check each one runs every task "
      "exactly once, and find the best setting and how far it is from the uniform-work floor "
      "(frey2012 sections 5-6)."};
  sweep_command command;
  add_options(app, command);
  if (const auto rc = parse_command_line(app, args, env)) return *rc;

  bool running = false;
  try {
    return run_command(command, env, running);
  } catch (const no_device_error& e) {
    *env.err << "sweep: no GPU: " << e.what() << "; nothing was run (exit " << exit_no_gpu << ")\n";
    return exit_no_gpu;
  } catch (const std::invalid_argument& e) {
    *env.err << "sweep: error: " << e.what() << "\n";
    return exit_bad_input;
  } catch (const std::exception& e) {
    // Before the first point: an output place or journal that cannot be used (bad input);
    // after it: a CUDA error or a file that cannot be written (a failed run).
    *env.err << "sweep: error: " << e.what() << "\n";
    return running ? exit_failed : exit_bad_input;
  }
}

}  // namespace microsched::sweep
