// julia: renders a Julia fractal with microsched and compares its time with the vanilla kernel,
// warp persistent threads and the uniform-work floor (frey2012 §5.2).
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>

#include "julia/julia_workload.hpp"
#include "microsched/device.hpp"
#include "png_writer.hpp"
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
      "Example: julia --offset 0 --precision double --output julia.png --verify"};
  workloads::options_map options;
  samples::add_workload_options(app, workloads::julia_parameters(), options);
  std::string output = "julia.png";
  app.add_option("-o,--output", output, "PNG to write (empty: none)")->capture_default_str();
  bool verify = false;
  app.add_flag("--verify", verify, "check every pixel against the vanilla kernel, each task once");
  samples::schedule_cli schedule;
  schedule.add_to(app);
  CLI11_PARSE(app, argc, argv);

  return samples::run_main([&] {
    const schedule_arguments args = schedule.arguments("julia");
    const auto settings = workloads::parse_julia_settings(options);
    if (!output.empty()) samples::check_writable(output);
    std::printf("device: %s\n", describe(current_device()).c_str());
    auto w = workloads::make_julia_workload(settings);
    samples::print_comparison(*w, args, schedule.repetitions);
    int rc = 0;
    if (verify && !samples::print_verification(*w, args)) rc = 1;
    if (!output.empty()) {
      const auto iterations = w->render_scheduled(args);
      samples::write_png(output, colour(iterations, settings.width, settings.height, settings.crunch));
      std::printf("wrote %s\n", output.c_str());
    }
    return rc;
  });
}
