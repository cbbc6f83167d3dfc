// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// calibration_replay: the automatic schedule's decisions replayed on bench_application's per-call
// CSV, under the default settings or others, on the CPU. Usage: calibration_replay FILE.csv
// [--keep-share X] [--margin X] [--drift X] [--rounds N] [--from-call N]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "calibration_replay.hpp"
#include "checked_cli.hpp"
#include "program_main.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "Replays the automatic schedule's host logic on the per-call times that "
      "bench_application --csv writes (every candidate timed on every call): the default's "
      "total against vanilla, direct and the per-call oracle under these settings, and its "
      "choice. No GPU needed. The first call of a real run is cut into slices, which the file "
      "does not hold: the replay starts at call 1. Each call takes the time the chosen candidate "
      "took as a fixed schedule on that call, so the replay follows the real default only "
      "approximately; compare settings with each other on the same file.\n"
      "Example: calibration_replay animation.csv --keep-share 0.03125"};
  std::string file;
  microsched::calibration_settings settings;
  std::size_t first_call = 1;
  app.add_option("file", file, "a CSV that bench_application --csv wrote");
  app.add_option("--keep-share", settings.keep_share,
                 "ski rental: share of an earlier saving a choice may lose a run (default 1/16)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--margin", settings.margin,
                 "fraction by which a candidate must beat direct (default 0.03)")
      ->check(CLI::Range(0.0, 0.99));
  app.add_option("--drift", settings.drift,
                 "factor off its time that makes a choice's run drifted (default 1.25)")
      ->check(CLI::Range(1.001, 100.0));
  app.add_option("--rounds", settings.rounds, "runs per candidate while calibrating (default 2)")
      ->check(CLI::Range(1, 100));
  app.add_option("--from-call", first_call, "the first call replayed (default 1)")
      ->check(CLI::Range(0, 100000000));
  MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);

  return microsched::programs::run_main("calibration_replay", [&] {
    if (file.empty())
      throw std::invalid_argument("a file is required: a CSV of bench_application --csv");
    std::ifstream in(file);
    if (!in) throw std::invalid_argument("'" + file + "': cannot be read");
    const auto candidates = microsched::automatic_candidates(false, {}, true, 128);
    microsched::replay::call_times times;
    try {
      times = microsched::replay::read_application_csv(in, candidates);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(file + ": " + e.what());
    }
    const auto s = microsched::replay::replay(times, candidates, settings, first_call);
    std::printf("%s, calls %zu..%zu: %s\nchoice: %s\n", file.c_str(), s.first_call,
                s.first_call + s.calls - 1, microsched::replay::describe(s).c_str(),
                s.report.c_str());
    return 0;
  });
}
