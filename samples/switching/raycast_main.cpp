// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// raycast: multi-layer isosurface ray casting of the hydrogen orbital psi(3,2,1) (frey2012 §5.3)
// with the shading branch managed by microsched context switching; writes a PNG and compares the
// time with the vanilla ray caster built from the same per-ray code.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "registry_cli.hpp"
#include "sample_cli.hpp"
#include "switching_cli.hpp"
#include "switching_workloads.hpp"

using namespace microsched;

namespace {

// The verification tolerance and its reason, printed with the result.
constexpr int tolerance = 2;                // per 8-bit channel
constexpr double allowed_fraction = 0.001;  // of the pixels may exceed it
constexpr const char* tolerance_reason =
    "both kernels run the same per-ray code, but nvcc compiles it into two kernels and may fuse "
    "a*b+c into FMA differently at each site; a last-bit change in one sample can move a "
    "bisection hit or, at a grazing crossing, the step that detects it";

samples::rgb_image to_rgb(const std::vector<std::uint32_t>& rgba, int width, int height) {
  samples::rgb_image image{width, height, std::vector<std::uint8_t>(rgba.size() * 3)};
  for (std::size_t i = 0; i < rgba.size(); ++i) {
    image.pixels[i * 3 + 0] = static_cast<std::uint8_t>(rgba[i] & 0xffu);
    image.pixels[i * 3 + 1] = static_cast<std::uint8_t>((rgba[i] >> 8) & 0xffu);
    image.pixels[i * 3 + 2] = static_cast<std::uint8_t>((rgba[i] >> 16) & 0xffu);
  }
  return image;
}

//! --tile: "rows", or "WxH" with W and H dividing the image's width and height.
void set_tiles(const std::string& tile, switching_workloads::raycast_settings& settings) {
  if (tile == "rows") return;
  const auto x = tile.find('x');
  const auto fail = [&](const std::string& why) {
    throw std::invalid_argument("--tile = '" + tile + "': " + why);
  };
  if (x == std::string::npos) fail("must be rows or WxH, e.g. 8x4");
  try {
    settings.tile_width = programs::parse_checked("--tile width", tile.substr(0, x), 1, 1024);
    settings.tile_height = programs::parse_checked("--tile height", tile.substr(x + 1), 1, 1024);
  } catch (const std::invalid_argument& e) {
    fail(std::string(e.what()) + " (rows or WxH, e.g. 8x4)");
  }
  if (settings.width % settings.tile_width != 0 || settings.height % settings.tile_height != 0) {
    fail("the tiles must divide the image (" + std::to_string(settings.width) + "x" +
         std::to_string(settings.height) + ")");
  }
}

//! The command line: the workload's settings and the program's own choices.
struct raycast_command {
  switching_workloads::raycast_settings settings;
  int vanilla_window = 64;
  std::string tile = "rows";
  samples::png_output output{"raycast.png"};
  bool profile = false;
  bool verify = false;
  samples::switching_cli cli;
};

//! The image, the ray march and the task order: what every kernel is given. Defaults and help
//! come from the registry's "raycast" (registry_option.hpp).
void add_workload_options(CLI::App& app, switching_workloads::raycast_settings& settings) {
  const samples::registry_options& registry = samples::raycast_options;
  samples::add_registry_checked(app, registry, "--width", settings.width, 1, 16384);
  samples::add_registry_checked(app, registry, "--height", settings.height, 1, 16384);
  samples::add_registry_checked(app, registry, "--step", settings.step_size, 0.001f, 10.0f);
  samples::add_registry_checked(app, registry, "--window", settings.march_window, 1, 4096);
  samples::add_registry_flag(app, registry, "--skip-empty", "--no-skip-empty", settings.skip_empty,
                             "; on by default here (exact), --no-skip-empty marches every sample");
  samples::add_registry_flag(app, registry, "--center-first", "--no-center-first",
                             settings.center_first,
                             "; on by default here, --no-center-first keeps --tile's order");
}

//! The baseline, the output, the diagnostics and the schedule: what the program does with them.
void add_program_options(CLI::App& app, raycast_command& c) {
  programs::add_checked(app, "--vanilla-window", c.vanilla_window,
                        "the window of the second vanilla run: vanilla is timed at window 1 (one "
                        "sample per loop iteration, the textbook kernel) and at this one; speedups "
                        "are against the faster (marching a window and then shading lets coherent "
                        "neighbouring rays shade together, a large win for vanilla too)",
                        1, 4096);
  app.add_option("--tile", c.tile,
                 "task order: rows (task t is pixel t, a vanilla warp is 32 pixels of a row: the "
                 "textbook mapping) or WxH tiles (e.g. 8x4: consecutive tasks, a vanilla warp and "
                 "a pool chunk of 32, are an 8x4 block of pixels), for every kernel; the image "
                 "does not depend on it; with tiles vanilla at window 1 is timed row-major too")
      ->capture_default_str();
  c.output.add_to(app);
  app.add_flag("--profile", c.profile,
               "one more, untimed run of vanilla (at --vanilla-window) and of context switching "
               "with per-visit lane counters and per-ray completion stamps: prints lanes active "
               "per visit, shading visits and lanes, and when 10%..100% of the rays had ended");
  app.add_flag("--verify", c.verify,
               "compare every pixel with the vanilla ray caster (per-channel tolerance 2 on at "
               "most 0.1% of the pixels; see the printed reason) and check each ray ends once");
  // A fixed --strategy: 3 blocks of 128 threads per SM at 512x512 (fewer warps, more rays each to
  // choose contexts from); against the tail of a run that holds nearly every ray at once, grabs
  // of 4 tasks, parked contexts resumed first in first out, expensive tiles first
  // (--center-first).
  c.cli.blocks_per_sm = 3;
  c.cli.chunk = 4;
  c.cli.fifo = true;
  c.cli.add_to(app, samples::raycast_options);
}

//! The vanilla runs that the speedups are against; `fastest` is the baseline.
struct vanilla_times {
  timing_stats window_1;  //!< one sample per loop iteration: the textbook kernel
  timing_stats window;    //!< at --vanilla-window
  timing_stats rows;      //!< row-major at window 1: timed only with tiles
  timing_stats ordered;   //!< expensive tiles first: timed only with --center-first
  timing_stats fastest;
};

//! Times vanilla at window 1 and --vanilla-window, and in the other task orders that apply.
vanilla_times time_vanilla_runs(switching_workloads::raycast_runner& runner,
                                const raycast_command& c, const timing_options& options) {
  // The vanilla baseline is the faster of one sample per loop iteration (the textbook kernel)
  // and --vanilla-window: the same per-ray code, the same image.
  const auto& settings = c.settings;
  const int window = settings.march_window;
  vanilla_times t{};
  runner.set_march_window(1);
  t.window_1 = runner.time_vanilla_tile_order(options);
  runner.set_march_window(c.vanilla_window);
  t.window = c.vanilla_window == 1 ? t.window_1 : runner.time_vanilla_tile_order(options);
  runner.set_march_window(window);
  t.fastest = t.window.median_ms < t.window_1.median_ms ? t.window : t.window_1;
  // With tiles, the textbook mapping (row-major) at window 1 as well.
  if (settings.tile_width > 0) {
    runner.set_tile(0, 0);
    runner.set_march_window(1);
    t.rows = runner.time_vanilla_tile_order(options);
    runner.set_march_window(c.vanilla_window);
    const auto rows_w = c.vanilla_window == 1 ? t.rows : runner.time_vanilla_tile_order(options);
    runner.set_march_window(window);
    runner.set_tile(settings.tile_width, settings.tile_height);
    if (rows_w.median_ms < t.fastest.median_ms) t.fastest = rows_w;
    if (t.rows.median_ms < t.fastest.median_ms) t.fastest = t.rows;
  }
  // With expensive tiles first, vanilla in that order too: the order alone must not be the win.
  if (settings.center_first) {
    runner.set_march_window(c.vanilla_window);
    t.ordered = runner.time_vanilla_scheduled_order(options);
    runner.set_march_window(window);
    if (t.ordered.median_ms < t.fastest.median_ms) t.fastest = t.ordered;
  }
  return t;
}

//! The rows of vanilla at window 1 and at --vanilla-window (once when they are the same run).
void print_vanilla_windows(const vanilla_times& vanilla, int vanilla_window) {
  samples::print_time("vanilla, window 1", vanilla.window_1, vanilla.fastest.median_ms);
  if (vanilla_window != 1) {
    samples::print_time("vanilla, window " + std::to_string(vanilla_window), vanilla.window,
                        vanilla.fastest.median_ms);
  }
}

//! --verify under the default: every form of its list against vanilla; true if all passed.
bool verify_default_forms(switching_workloads::raycast_runner& runner) {
  bool passed = true;
  for (const auto& f : runner.verify_forms(tolerance, allowed_fraction)) {
    if (!f.report.passed) {
      std::printf("verify: FAILED: %s: %s\n", f.form.c_str(), f.report.detail.c_str());
    }
    passed = passed && f.report.passed;
  }
  std::printf(
      "verify: %s: every form of the default's list ran each ray once, images within %d "
      "per channel of vanilla on all but %.1f%% of the pixels\n  tolerance: %s\n",
      passed ? "passed" : "FAILED", tolerance, 100.0 * allowed_fraction, tolerance_reason);
  return passed;
}

//! --strategy automatic: times the default, prints it against vanilla and returns the exit code.
int report_default(switching_workloads::raycast_runner& runner, raycast_command& c,
                   const vanilla_times& vanilla, const timing_options& options) {
  const auto d = runner.time_default(options);
  std::printf("%s\n", runner.describe().c_str());
  print_vanilla_windows(vanilla, c.vanilla_window);
  samples::print_default(d, vanilla.fastest.median_ms);
  std::printf("  default against vanilla at window 1: %.2fx\n",
              vanilla.window_1.median_ms / d.chosen.median_ms);
  int rc = 0;
  if (c.verify && !verify_default_forms(runner)) rc = 1;
  if (c.output.wanted()) {
    c.output.write(to_rgb(runner.render_vanilla(), c.settings.width, c.settings.height));
  }
  return rc;
}

//! A fixed --strategy: the vanilla rows, both microsched drivers and the speedups.
void print_scheduled_times(const samples::scheduled_times& scheduled, const vanilla_times& vanilla,
                           const raycast_command& c) {
  const bool tiled = c.settings.tile_width > 0;
  const double vanilla_ms = vanilla.fastest.median_ms;
  print_vanilla_windows(vanilla, c.vanilla_window);
  if (tiled) samples::print_time("vanilla, window 1, rows", vanilla.rows, vanilla_ms);
  if (c.settings.center_first) {
    samples::print_time(
        "vanilla, window " + std::to_string(c.vanilla_window) + ", expensive tiles first",
        vanilla.ordered, vanilla_ms);
  }
  samples::print_scheduled(scheduled, vanilla_ms);
  std::printf("  context switching against vanilla at window 1: %.2fx\n",
              vanilla.window_1.median_ms / scheduled.switching.median_ms);
  if (tiled) {
    std::printf("  context switching against vanilla at window 1, rows: %.2fx\n",
                vanilla.rows.median_ms / scheduled.switching.median_ms);
  }
}

//! One --profile line: when the rays ended, and the lanes per visit where they were counted.
void print_profile(const char* name, const switching_workloads::run_profile& p) {
  std::printf("profile %s: rays begun within %.3f ms; ended by (ms from the first begin):", name,
              p.begin_span_ms);
  for (std::size_t i = 0; i < p.fractions.size(); ++i) {
    std::printf(" %g%% %.3f", 100.0 * p.fractions[i], p.end_ms[i]);
  }
  std::printf("\n");
  if (p.counted && p.steps > 0) {
    std::printf(
        "  visits %.0f, active lanes per visit %.2f; shading in %.1f%% of the visits, "
        "%.2f lanes each\n",
        p.steps, p.active_lanes / p.steps, 100.0 * p.then_steps / p.steps,
        p.then_steps > 0 ? p.then_lanes / p.then_steps : 0.0);
  }
}

//! --verify of a fixed --strategy: each ray once and the image within tolerance of vanilla's.
bool verify_rays(switching_workloads::raycast_runner& runner,
                 const switching_workloads::variant& v) {
  const auto r = runner.check(v, tolerance, allowed_fraction);
  std::printf(
      "verify: %s: %llu rays, %llu missing, %llu duplicated; %llu pixels differ from "
      "vanilla at all (largest channel difference %d), %llu beyond the tolerance of "
      "%d (allowed: %.1f%% of the pixels)%s%s\n  tolerance: %s\n",
      r.tasks.passed ? "passed" : "FAILED", static_cast<unsigned long long>(r.tasks.tasks),
      static_cast<unsigned long long>(r.tasks.missing),
      static_cast<unsigned long long>(r.tasks.duplicated),
      static_cast<unsigned long long>(r.pixels_differing), r.max_channel_difference,
      static_cast<unsigned long long>(r.tasks.mismatched), tolerance, 100.0 * allowed_fraction,
      r.tasks.detail.empty() ? "" : ": ", r.tasks.detail.c_str(), tolerance_reason);
  return r.tasks.passed;
}

//! --verify: vanilla under these options against the textbook vanilla; true if within tolerance.
bool verify_textbook(switching_workloads::raycast_runner& runner, const raycast_command& c) {
  // The window and skipping change the loop, not the samples: vanilla under these options
  // against the textbook vanilla (window 1, no skipping).
  const auto textbook = runner.render_vanilla_textbook();
  const auto reference = runner.render_vanilla();
  std::size_t differ = 0;
  std::size_t beyond = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    if (reference[i] == textbook[i]) continue;
    ++differ;
    for (int ch = 0; ch < 4; ++ch) {
      const int a = static_cast<int>((reference[i] >> (8 * ch)) & 0xffu);
      const int b = static_cast<int>((textbook[i] >> (8 * ch)) & 0xffu);
      if (std::abs(a - b) > tolerance) {
        ++beyond;
        break;
      }
    }
  }
  const bool same =
      static_cast<double>(beyond) <= allowed_fraction * static_cast<double>(reference.size());
  const bool tiled = c.settings.tile_width > 0;
  std::printf(
      "verify window/skipping/tiles: %s: vanilla at window %d%s%s against vanilla at "
      "window 1 without skipping, row-major: %zu pixels differ at all, %zu beyond the "
      "tolerance\n",
      same ? "passed" : "FAILED", c.settings.march_window,
      c.settings.skip_empty ? " with skipping" : "",
      tiled ? (", " + c.tile + " tiles").c_str() : "", differ, beyond);
  return same;
}

//! A fixed --strategy: times both drivers, prints, profiles, verifies; returns the exit code.
int report_scheduled(switching_workloads::raycast_runner& runner, raycast_command& c,
                     const switching_workloads::variant& v, const vanilla_times& vanilla,
                     const timing_options& options) {
  const auto scheduled = samples::time_scheduled(runner, v, options);
  std::printf("%s\n", runner.describe().c_str());
  print_scheduled_times(scheduled, vanilla, c);
  samples::print_switching(runner, v);
  if (c.profile) {
    runner.set_march_window(c.vanilla_window);
    print_profile("vanilla", runner.profile_vanilla());
    runner.set_march_window(c.settings.march_window);
    print_profile("switching", runner.profile_switching(v));
  }
  int rc = 0;
  if (c.verify) {
    if (!verify_rays(runner, v)) rc = 1;
    if (!verify_textbook(runner, c)) rc = 1;
  }
  if (c.output.wanted()) {
    c.output.write(to_rgb(runner.render_switching(v), c.settings.width, c.settings.height));
  }
  return rc;
}

//! The program once its arguments are parsed: checks the rest, times, reports.
int run_raycast(raycast_command& c) {
  set_tiles(c.tile, c.settings);
  const auto v = c.cli.variant();
  c.output.check();
  samples::print_device();
  switching_workloads::raycast_runner runner(c.settings);
  const timing_options options = c.cli.timing();
  std::fprintf(stderr, "timing %s...\n", runner.describe().c_str());
  const vanilla_times vanilla = time_vanilla_runs(runner, c, options);
  if (c.cli.automatic()) return report_default(runner, c, vanilla, options);
  return report_scheduled(runner, c, v, vanilla, options);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Ray casts eight isosurfaces of the hydrogen orbital psi(3,2,1), evaluated on the fly: at "
      "each crossing, bisection refines the hit, Sobel operators give the first and second "
      "derivatives, Blinn-Phong shades with the gradient and the second derivative's magnitude "
      "sets the opacity (frey2012 5.3). The shading is a managed branch: microsched runs it on "
      "whole warps of rays that need it. Prints the times of the vanilla ray caster, the "
      "termination-only persistent driver and context switching.\n"
      "Example: raycast --verify --output raycast.png"};
  raycast_command command;
  add_workload_options(app, command.settings);
  add_program_options(app, command);
  MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);
  return samples::run_main("raycast", [&] { return run_raycast(command); });
}
