// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "montecarlo/montecarlo_program.cuh"
#include "montecarlo/montecarlo_workload.hpp"
#include "options.hpp"
#include "task_workload.cuh"

namespace microsched::workloads {

namespace {

class montecarlo_workload final : public task_workload<kernels::montecarlo_program, 2> {
 public:
  explicit montecarlo_workload(const montecarlo_settings& s)
      : task_workload(s.tasks), settings_(s) {}

  [[nodiscard]] std::string name() const override { return "montecarlo"; }
  [[nodiscard]] std::string describe() const override {
    return "montecarlo tasks=" + std::to_string(settings_.tasks) +
           " kill=" + std::to_string(settings_.kill_probability);
  }

 protected:
  [[nodiscard]] kernels::montecarlo_program make_program(const outputs& out) const override {
    kernels::montecarlo_program p;
    p.kill_probability = settings_.kill_probability;
    p.seed = settings_.seed;
    p.steps_out = out[0];
    p.sum_out = out[1];
    return p;
  }

 private:
  montecarlo_settings settings_;
};

}  // namespace

std::vector<parameter> montecarlo_parameters() {
  // 2^24 tasks: with fewer, the longest geometric task (about ln(n)/kill draws) is long next to
  // the work each resident lane gets, and the run's tail hides what scheduling gains (H100, kill
  // 0.001: 2.4x vanilla at 2^20 tasks, 3.0x at 2^22, 3.3x at 2^24).
  return {{"tasks", "16777216", "number of independent random walks"},
          {"kill", "0.01", "probability that a step ends its task (mean length 1/kill)"},
          {"seed", "1234", "Philox seed"}};
}

montecarlo_settings parse_montecarlo_settings(const options_map& options) {
  const auto known = montecarlo_parameters();
  reject_unknown("montecarlo", options, known);
  montecarlo_settings s;
  s.tasks = static_cast<std::uint64_t>(integer_option(options, known, "tasks", 1, 1ll << 32));
  s.kill_probability = static_cast<float>(real_option(options, known, "kill", 1e-6, 1.0));
  s.seed = static_cast<unsigned long long>(integer_option(options, known, "seed", 0, 1ll << 62));
  return s;
}

std::unique_ptr<workload> make_montecarlo_workload(const montecarlo_settings& settings) {
  return std::make_unique<montecarlo_workload>(settings);
}

}  // namespace microsched::workloads
