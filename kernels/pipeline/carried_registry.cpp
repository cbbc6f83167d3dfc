// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The loop-carried gafort in the registry, with kernel splitting (split_loop): helper threads remap
// a share of each iteration's elements while the GPU runs the rest. The tunables are the ratio and
// the helper threads.
#include "microsched/measure/host_timer.hpp"
#include "microsched/pipeline/cuda_backend.hpp"
#include "microsched/pipeline/kernel_split.hpp"
#include "options.hpp"
#include "pipeline_registry.hpp"
#include "pipeline_workloads.hpp"

namespace microsched::workloads::registry {

namespace {

namespace pl = pipeline;
namespace pw = pipeline::workloads;

std::vector<parameter> carried_parameters() {
  const pw::carried_options d;
  return {{"iterations", std::to_string(d.iterations), "iterations of the loop"},
          {"elements", std::to_string(d.elements), "population, iterated over"},
          {"max-trips", std::to_string(d.max_trips), "longest crossover segment"},
          {"seed", std::to_string(d.seed), "random seed"}};
}

pw::carried_options parse_carried(const options_map& o) {
  const auto known = carried_parameters();
  pw::carried_options c;
  c.iterations = static_cast<std::size_t>(integer_option(o, known, "iterations", 1, 1 << 20));
  c.elements = static_cast<std::size_t>(integer_option(o, known, "elements", 1, 1ll << 31));
  c.max_trips = static_cast<std::uint32_t>(integer_option(o, known, "max-trips", 1, 1 << 24));
  c.seed = static_cast<unsigned>(integer_option(o, known, "seed", 0, 0xffffffffll));
  return c;
}

std::vector<parameter> carried_tunables() {
  const pl::split_arguments d;
  return {{"ratio", "0.5", "r: share of each iteration's elements remapped (0..1)"},
          {"helpers", std::to_string(d.threads), "helper threads remapping it (1..256)"}};
}

pl::split_arguments parse_carried_tunables(const options_map& o) {
  const auto known = carried_tunables();
  pl::split_arguments a;
  a.ratio = real_option(o, known, "ratio", 0.0, 1.0);
  a.threads = static_cast<int>(integer_option(o, known, "helpers", 1, 256));
  pl::validate(a);
  return a;
}

class carried_workload final : public workload {
 public:
  explicit carried_workload(const pw::carried_options& o) : program_(pw::make_carried(o)) {
    set_tunables({});
  }
  [[nodiscard]] std::string name() const override { return "carried"; }
  [[nodiscard]] std::string describe() const override { return program_->describe(); }
  [[nodiscard]] std::uint64_t num_tasks() const override {
    return program_->iteration_count() * program_->elements();
  }
  [[nodiscard]] std::uint64_t total_steps() override { return 0; }
  [[nodiscard]] workload_traits traits() const override { return pipeline_traits(); }
  void set_tunables(const options_map& values) override {
    reject_unknown(name(), values, carried_tunables());
    args_ = parse_carried_tunables(values);
  }

  //! The original loop from the initial population (restored, untimed, before each run).
  timing_stats time_vanilla(const timing_options& o) override {
    pw::any_split_program p{*program_};
    return time_on_host([&] { pl::split_loop<pl::cuda_backend>::run_original(backend_, p); }, o,
                        [&] { program_->reset(); });
  }
  timing_stats time_warp_persistent(const timing_options&) override {
    no_reference(name(), "persistent-threads", pipeline_missing);
  }
  timing_stats time_floor(const timing_options&) override {
    no_reference(name(), "floor", pipeline_missing);
  }
  timing_stats time_scheduled(const schedule_arguments&, const timing_options& o) override {
    pw::any_split_program p{*program_};
    pl::split_loop<pl::cuda_backend> loop(backend_, args_);
    auto t = time_on_host(
        [&] {
          (void)loop.run(p);
          wait_for_device();
        },
        o, [&] { program_->reset(); });
    last_summary_ = loop.statistics().summary();
    return t;
  }
  //! From the initial population, the outputs (every iteration's and the final population)
  //! against the original loop's, word for word, twice: the loop with every second part remapped
  //! before its launch (split_loop::run_remapped, so the optimised kernel runs in every
  //! iteration), then the split loop, whatever was ready in time.
  verification_report verify_scheduled(const schedule_arguments&) override {
    pw::any_split_program p{*program_};
    if (reference_.empty()) {
      program_->reset();
      pl::split_loop<pl::cuda_backend>::run_original(backend_, p);
      reference_ = program_->outputs();
    }
    const std::uint64_t tasks = num_tasks();
    const auto compare = [&] {
      return compare_outputs(program_->outputs(), reference_, tasks,
                             std::max<std::uint64_t>(1, reference_.size() / tasks));
    };
    program_->reset();
    pl::split_loop<pl::cuda_backend>::run_remapped(backend_, p, args_.ratio, args_.granularity);
    auto remapped = compare();
    if (!remapped.passed) {
      remapped.detail += "(every second part remapped)";
      return remapped;
    }
    pl::split_loop<pl::cuda_backend> loop(backend_, args_);
    program_->reset();
    (void)loop.run(p);
    wait_for_device();
    return compare();
  }
  [[nodiscard]] std::vector<resource_report> resources(const schedule_arguments&) override {
    return {};
  }
  [[nodiscard]] std::string schedule_report(const schedule_arguments&) override {
    return last_summary_.empty() ? "not timed yet" : last_summary_;
  }

 private:
  std::unique_ptr<pw::split_program_base> program_;
  pl::cuda_backend backend_;
  pl::split_arguments args_;
  std::vector<std::uint32_t> reference_;
  std::string last_summary_;
};

}  // namespace

entry carried_entry() {
  return entry_of<pw::carried_options>(
      {.name = "carried",
       .parameters = carried_parameters,
       .parse = parse_carried,
       .build = build_as<carried_workload, pw::carried_options>,
       .traits = pipeline_traits,
       .tunables = carried_tunables,
       .check_tunables = [](const options_map& values, const pw::carried_options&) {
         (void)parse_carried_tunables(values);
       }});
}

}  // namespace microsched::workloads::registry
