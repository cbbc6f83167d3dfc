// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// julia: renders a Julia fractal with microsched and compares its time with the vanilla kernel,
// warp persistent threads and the uniform-work floor (frey2012 §5.2).
#include <CLI/CLI.hpp>
#include <cmath>

#include "julia/julia_workload.hpp"
#include "sample_cli.hpp"

using namespace microsched;

namespace {

//! Escape time to colour: a smooth palette for escaping pixels, black for the set.
samples::rgb_image colour(const std::vector<std::uint32_t>& iterations, int width, int height,
                          std::uint32_t crunch) {
  samples::rgb_image image{width, height, std::vector<std::uint8_t>(iterations.size() * 3)};
  for (std::size_t i = 0; i < iterations.size(); ++i) {
    std::uint8_t* px = &image.pixels[i * 3];
    if (iterations[i] >= crunch) {
      px[0] = px[1] = px[2] = 0;
      continue;
    }
    const double t = std::log2(1.0 + iterations[i]) / std::log2(1.0 + crunch);
    px[0] = static_cast<std::uint8_t>(255 * std::pow(t, 0.5));
    px[1] = static_cast<std::uint8_t>(255 * t * t);
    px[2] = static_cast<std::uint8_t>(255 * (0.5 + 0.5 * std::sin(6.28 * t)));
  }
  return image;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Renders a Julia set with the microsched persistent-warp scheduler and prints its time "
      "next to the vanilla kernel (one thread per pixel), warp persistent threads and the "
      "uniform-work floor (every thread does the mean number of iterations, so no warp diverges).\n"
      "--view picks a named view (its c and zoom target), --c RE,IM any other c.\n"
      "Example: julia --offset 0 --precision double --output julia.png --verify\n"
      "Example: julia --view seahorse --c=-0.75,0.11 --output seahorse.png"};
  workloads::options_map options;
  samples::add_workload_options(app, workloads::julia_parameters(), options);
  samples::png_output output{"julia.png"};
  output.add_to(app);
  bool verify = false;
  app.add_flag("--verify", verify, "check every pixel against the vanilla kernel, each task once");
  samples::schedule_cli schedule;
  schedule.add_to(app);
  MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);

  return samples::run_main("julia", [&] {
    const auto settings = workloads::parse_julia_settings(options);
    output.check();
    const schedule_arguments args = schedule.arguments("julia");  // --tuned asks the GPU's name
    samples::print_device();
    auto w = workloads::make_julia_workload(settings);
    const int rc = samples::compare_and_verify(*w, args, schedule.repetitions, verify);
    if (output.wanted()) {
      const auto iterations = w->render_scheduled(args);
      output.write(colour(iterations, settings.width, settings.height, settings.crunch));
    }
    return rc;
  });
}
