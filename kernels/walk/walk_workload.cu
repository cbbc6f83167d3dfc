// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "options.hpp"
#include "task_workload.cuh"
#include "walk/walk_program.cuh"
#include "walk/walk_workload.hpp"

namespace microsched::workloads {

namespace {

//! Walks that reach neither bound within this many steps end there (none of the benchmark's do:
//! the longest of 2^24 walks at half-width 16 takes a few thousand steps).
constexpr std::uint32_t walk_max_steps = 1u << 20;

class walk_workload final : public task_workload<kernels::walk_program, 1> {
 public:
  explicit walk_workload(const walk_settings& s) : task_workload(s.tasks), settings_(s) {}

  [[nodiscard]] std::string name() const override { return "walk"; }
  [[nodiscard]] std::string describe() const override {
    return "walk tasks=" + std::to_string(settings_.tasks) +
           " half-width=" + std::to_string(settings_.half_width) +
           " seed=" + std::to_string(settings_.seed);
  }

 protected:
  [[nodiscard]] kernels::walk_program make_program(const outputs& out) const override {
    kernels::walk_program p;
    p.seed = settings_.seed;
    p.half_width = settings_.half_width;
    p.max_steps = walk_max_steps;
    p.steps_out = out[0];
    return p;
  }

 private:
  walk_settings settings_;
};

}  // namespace

std::vector<parameter> walk_parameters() {
  return {{"tasks", "16777216", "number of walks (one task each)"},
          {"half-width", "4",
           "a walk ends at -half-width or +half-width: half-width^2 steps "
           "on average"},
          {"seed", "0", "mixed into every walk's generator"}};
}

walk_settings parse_walk_settings(const options_map& options) {
  const auto known = walk_parameters();
  reject_unknown("walk", options, known);
  walk_settings s;
  s.tasks = static_cast<std::uint64_t>(integer_option(options, known, "tasks", 1, 1ll << 32));
  s.half_width = static_cast<std::int32_t>(integer_option(options, known, "half-width", 1, 1024));
  s.seed = static_cast<std::uint32_t>(integer_option(options, known, "seed", 0, 0xffffffffll));
  return s;
}

std::unique_ptr<workload> make_walk_workload(const walk_settings& settings) {
  return std::make_unique<walk_workload>(settings);
}

std::vector<std::uint32_t> walk_task_lengths(const walk_settings& settings) {
  std::vector<std::uint32_t> steps(settings.tasks);
  for (std::uint64_t t = 0; t < settings.tasks; ++t) {
    steps[t] = kernels::walk_total_steps(t, settings.seed, settings.half_width, walk_max_steps);
  }
  return steps;
}

}  // namespace microsched::workloads
