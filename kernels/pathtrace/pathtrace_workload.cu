// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <stdexcept>
#include <string>

#include "options.hpp"
#include "pathtrace/pathtrace_program.cuh"
#include "pathtrace/pathtrace_workload.hpp"
#include "task_workload.cuh"

namespace microsched::workloads {

namespace {

class pathtrace_workload final : public task_workload<kernels::pathtrace_program, 2> {
 public:
  explicit pathtrace_workload(const pathtrace_settings& s)
      : task_workload(std::uint64_t{s.width} * s.height * s.spp), settings_(s) {}

  [[nodiscard]] std::string name() const override { return "pathtrace"; }
  [[nodiscard]] std::string describe() const override {
    return "pathtrace " + std::to_string(settings_.width) + "x" + std::to_string(settings_.height) +
           " spp=" + std::to_string(settings_.spp) +
           " max-depth=" + std::to_string(settings_.max_depth) +
           " seed=" + std::to_string(settings_.seed);
  }

 protected:
  [[nodiscard]] kernels::pathtrace_program make_program(const outputs& out) const override {
    kernels::pathtrace_program p;
    p.width = settings_.width;
    p.height = settings_.height;
    p.spp = settings_.spp;
    p.max_depth = settings_.max_depth;
    p.seed = settings_.seed;
    p.luminance_out = out[0];
    p.bounces_out = out[1];
    return p;
  }

 private:
  pathtrace_settings settings_;
};

}  // namespace

std::vector<parameter> pathtrace_parameters() {
  return {{"width", "1024", "image width in pixels"},
          {"height", "1024", "image height in pixels"},
          {"spp", "16", "paths per pixel (one task each)"},
          {"max-depth", "64", "a path ends after this many bounces at the latest"},
          {"seed", "0", "mixed into every path's random numbers"}};
}

pathtrace_settings parse_pathtrace_settings(const options_map& options) {
  const auto known = pathtrace_parameters();
  reject_unknown("pathtrace", options, known);
  pathtrace_settings s;
  s.width = static_cast<std::uint32_t>(integer_option(options, known, "width", 1, 1 << 24));
  s.height = static_cast<std::uint32_t>(integer_option(options, known, "height", 1, 1 << 24));
  s.spp = static_cast<std::uint32_t>(integer_option(options, known, "spp", 1, 1 << 24));
  s.max_depth = static_cast<std::uint32_t>(integer_option(options, known, "max-depth", 1, 4096));
  s.seed = static_cast<std::uint32_t>(integer_option(options, known, "seed", 0, 0xffffffffll));
  const std::uint64_t paths = std::uint64_t{s.width} * s.height * s.spp;
  if (paths > (std::uint64_t{1} << 32)) {
    throw std::invalid_argument("pathtrace: width x height x spp = " + std::to_string(paths) +
                                " paths; at most 2^32");
  }
  return s;
}

std::unique_ptr<workload> make_pathtrace_workload(const pathtrace_settings& settings) {
  return std::make_unique<pathtrace_workload>(settings);
}

std::vector<std::uint32_t> pathtrace_task_lengths(const pathtrace_settings& s) {
  const std::uint64_t paths = std::uint64_t{s.width} * s.height * s.spp;
  std::vector<std::uint32_t> bounces(paths);
  for (std::uint64_t t = 0; t < paths; ++t) {
    const auto pixel = static_cast<std::uint32_t>(t / s.spp);
    kernels::pt_path p = kernels::pt_camera(pixel % s.width, pixel / s.width, s.width, s.height,
                                            kernels::pt_key(t, s.seed));
    while (!kernels::pt_bounce(p, s.max_depth)) {
    }
    bounces[t] = p.depth;
  }
  return bounces;
}

}  // namespace microsched::workloads
