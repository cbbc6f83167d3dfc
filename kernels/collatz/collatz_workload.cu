// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "collatz/collatz_program.cuh"
#include "collatz/collatz_workload.hpp"
#include "options.hpp"
#include "task_workload.cuh"

namespace microsched::workloads {

namespace {

class collatz_workload final : public task_workload<kernels::collatz_program, 1> {
 public:
  explicit collatz_workload(const collatz_settings& s) : task_workload(s.tasks), settings_(s) {}

  [[nodiscard]] std::string name() const override { return "collatz"; }
  [[nodiscard]] std::string describe() const override {
    return "collatz tasks=" + std::to_string(settings_.tasks) +
           " first=" + std::to_string(settings_.first);
  }

 protected:
  [[nodiscard]] kernels::collatz_program make_program(const outputs& out) const override {
    kernels::collatz_program p;
    p.first = settings_.first;
    p.steps_out = out[0];
    return p;
  }

 private:
  collatz_settings settings_;
};

}  // namespace

std::vector<parameter> collatz_parameters() {
  // 2^24 starts from 2^32: about 230 steps per task, the slowest of 32 neighbours 1.51x the mean
  // (task_lengths collatz).
  return {{"tasks", "16777216", "number of starts (one task each)"},
          {"first", "4294967296", "the first start; the starts are first, first+1, ..."}};
}

collatz_settings parse_collatz_settings(const options_map& options) {
  const auto known = collatz_parameters();
  reject_unknown("collatz", options, known);
  collatz_settings s;
  const auto last_safe = static_cast<long long>(kernels::collatz_last_safe_start);
  s.tasks = static_cast<std::uint64_t>(integer_option(options, known, "tasks", 1, 1ll << 32));
  s.first = static_cast<std::uint64_t>(integer_option(options, known, "first", 2, last_safe));
  if (s.first + (s.tasks - 1) > kernels::collatz_last_safe_start) {
    throw std::invalid_argument(
        "first = " + std::to_string(s.first) + ", tasks = " + std::to_string(s.tasks) +
        ": the last start, " + std::to_string(s.first + s.tasks - 1) + ", is beyond " +
        std::to_string(kernels::collatz_last_safe_start) + ", where orbits can pass 2^64");
  }
  return s;
}

std::unique_ptr<workload> make_collatz_workload(const collatz_settings& settings) {
  return std::make_unique<collatz_workload>(settings);
}

std::vector<std::uint32_t> collatz_task_lengths(const collatz_settings& settings) {
  std::vector<std::uint32_t> steps(settings.tasks);
  for (std::uint64_t t = 0; t < settings.tasks; ++t) {
    steps[t] = kernels::collatz_total_steps(settings.first + t);
  }
  return steps;
}

}  // namespace microsched::workloads
