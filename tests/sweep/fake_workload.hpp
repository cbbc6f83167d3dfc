// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! A test double for the sweep: a workload with deterministic fake timings, no GPU. It counts
//! what the sweep asks of it, refuses blocks-per-sm above 8 like an occupancy limit would, and
//! can be told to fail the exactly-once check for one schedule.

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "sweep/engine.hpp"

namespace microsched::sweep::testing {

struct fake_counters {
  int made = 0;
  int baselines = 0;                      //!< time_vanilla calls
  int checks = 0;                         //!< checks that ran (passed or failed)
  int refused = 0;                        //!< checks refused: the point is skipped
  std::map<std::string, int> timed;       //!< "scenario | schedule" -> time_scheduled calls
  std::optional<std::string> fail_check;  //!< schedule key whose check fails
  int points() const { return checks + refused; }
  int total_timed() const {
    int n = 0;
    for (const auto& [k, v] : timed) n += v;
    return n;
  }
};

class fake_workload final : public workloads::workload {
 public:
  fake_workload(const options_map& options, std::shared_ptr<fake_counters> counters)
      : counters_(std::move(counters)) {
    for (const auto& [name, value] : options) {
      if (name != "offset" && name != "crunch") {
        throw std::invalid_argument("fake: unknown option '" + name + "'");
      }
    }
    offset_ = read(options, "offset", 0, 0, 2);
    crunch_ = read(options, "crunch", 4096, 1, 1 << 20);
    key_ = scenario_key("fake", options);
  }

  std::string name() const override { return "fake"; }
  std::string describe() const override {
    return "fake offset=" + std::to_string(offset_) + " crunch=" + std::to_string(crunch_);
  }
  std::uint64_t num_tasks() const override { return 1000; }
  std::uint64_t total_steps() override { return 1000ull * static_cast<std::uint64_t>(crunch_); }

  timing_stats time_vanilla(const timing_options& o) override {
    ++counters_->baselines;
    return stats(floor_ms() * (3 - offset_), o);
  }
  timing_stats time_warp_persistent(const timing_options& o) override {
    return stats(floor_ms() * (3 - offset_) * 1.25, o);
  }
  timing_stats time_floor(const timing_options& o) override { return stats(floor_ms(), o); }

  timing_stats time_scheduled(const schedule_arguments& a, const timing_options& o) override {
    refuse(a);
    ++counters_->timed[key_ + " | " + schedule_text(a)];
    return stats(scheduled_ms(a), o);
  }

  workloads::verification_report verify_scheduled(const schedule_arguments& a) override {
    if (a.blocks_per_sm > 8) ++counters_->refused;
    refuse(a);
    ++counters_->checks;
    workloads::verification_report r;
    r.tasks = num_tasks();
    r.passed = !(counters_->fail_check && *counters_->fail_check == schedule_text(a));
    if (!r.passed) {
      r.missing = 3;
      r.duplicated = 1;
      r.detail = "task 17 never ran";
    }
    return r;
  }

  std::vector<workloads::resource_report> resources(const schedule_arguments&) override {
    return {};
  }

  //! The fake time of a schedule: a smooth bowl around a best chunk per strategy.
  double scheduled_ms(const schedule_arguments& a) const {
    const double best_chunk = a.strategy == pool_strategy::local           ? 10
                              : a.strategy == pool_strategy::private_pools ? 1
                                                                           : 4 + offset_;
    // deferral 0 asks for the policy's default: the fake's best, 8.
    const double deferral = a.deferral > 0 ? static_cast<double>(a.deferral) : 8.0;
    double t = 1.05 + 0.02 * std::abs(std::log2(static_cast<double>(a.chunk)) - best_chunk) +
               0.03 * std::abs(std::log2(deferral) - 3) + 0.01 * (a.fetch.idle_threshold - 1) +
               (a.strategy == pool_strategy::local ? 0.1 : 0);
    if (a.strategy == pool_strategy::budgeted) {  // best at a budget of 64
      t += 0.01 * std::abs(std::log2(static_cast<double>(budget_of(a))) - 6);
    }
    return floor_ms() * t;
  }

 private:
  static int read(const options_map& m, const char* name, int fallback, int lo, int hi) {
    const auto it = m.find(name);
    if (it == m.end()) return fallback;
    std::size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(it->second, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != it->second.size() || v < lo || v > hi) {
      throw std::invalid_argument(std::string(name) + " = " + it->second + ": expected " +
                                  std::to_string(lo) + ".." + std::to_string(hi));
    }
    return v;
  }
  static void refuse(const schedule_arguments& a) {
    if (a.blocks_per_sm > 8) {
      throw std::invalid_argument("blocks per SM = " + std::to_string(a.blocks_per_sm) +
                                  ": at most 8 fit on one SM for this kernel");
    }
  }
  double floor_ms() const { return crunch_ / 1000.0; }
  static timing_stats stats(double ms, const timing_options& o) {
    return {ms, ms * 0.99, ms * 1.02, o.repetitions};
  }

  std::shared_ptr<fake_counters> counters_;
  int offset_ = 0, crunch_ = 4096;
  std::string key_;
};

inline std::vector<workloads::parameter> fake_parameters() {
  return {{"offset", "0", "0 divergent, 2 uniform"},
          {"crunch", "4096", "steps of the longest task"}};
}

inline workload_factory fake_factory(std::shared_ptr<fake_counters> counters) {
  workload_factory f;
  f.parameters = [](const std::string& name) {
    if (name != "fake") throw std::invalid_argument("workload '" + name + "': expected fake");
    return fake_parameters();
  };
  f.make = [counters](const std::string&, const options_map& options) {
    ++counters->made;
    return std::make_unique<fake_workload>(options, counters);
  };
  return f;
}

//! A test double of an area workload without a schedule (like remap and pipeline): two
//! tunables, `method` (a, b) and `level` (1..8), method b compiled for levels up to 4 only (a
//! point beyond is skipped), no persistent-threads and no floor reference.
class fake_area_workload final : public workloads::workload {
 public:
  explicit fake_area_workload(std::shared_ptr<fake_counters> counters)
      : counters_(std::move(counters)) {}
  std::string name() const override { return "fake-area"; }
  std::string describe() const override { return "fake-area"; }
  std::uint64_t num_tasks() const override { return 100; }
  std::uint64_t total_steps() override { return 0; }
  workloads::workload_traits traits() const override { return fake_area_traits(); }
  static workloads::workload_traits fake_area_traits() {
    workloads::workload_traits t;
    t.area = "remap";
    t.takes_schedule = false;
    t.baselines.persistent = "";
    t.baselines.floor = "";
    t.baselines.missing = "no persistent driver, no divergence-free input";
    return t;
  }
  static std::vector<workloads::parameter> tunables() {
    return {{"method", "a", "a or b"}, {"level", "1", "1..8"}};
  }
  //! Host-only check of the values (the registry's validate_workload_options).
  static void validate(const options_map& values) {
    for (const auto& [name, value] : values) {
      if (name == "method" && value != "a" && value != "b")
        throw std::invalid_argument("method = " + value + ": expected a or b");
      if (name == "level" && (value.size() != 1 || value[0] < '1' || value[0] > '8'))
        throw std::invalid_argument("level = " + value + ": expected 1..8");
      if (name != "method" && name != "level")
        throw std::invalid_argument("fake-area: unknown option '" + name + "'");
    }
  }
  void set_tunables(const options_map& values) override {
    validate(values);
    const auto m = values.find("method");
    const auto l = values.find("level");
    method_ = m == values.end() ? "a" : m->second;
    level_ = l == values.end() ? 1 : l->second[0] - '0';
    if (method_ == "b" && level_ > 4)
      throw std::invalid_argument("method b is not compiled for level " + std::to_string(level_));
  }
  timing_stats time_vanilla(const timing_options& o) override {
    ++counters_->baselines;
    return stats(4.0, o);
  }
  timing_stats time_warp_persistent(const timing_options&) override {
    throw std::invalid_argument("fake-area has no persistent-threads reference");
  }
  timing_stats time_floor(const timing_options&) override {
    throw std::invalid_argument("fake-area has no floor reference");
  }
  timing_stats time_scheduled(const schedule_arguments&, const timing_options& o) override {
    ++counters_->timed[method_ + std::to_string(level_)];
    return stats((method_ == "a" ? 3.0 : 2.0) + 0.1 * std::abs(level_ - 3), o);
  }
  workloads::verification_report verify_scheduled(const schedule_arguments&) override {
    ++counters_->checks;
    workloads::verification_report r;
    r.tasks = 100;
    r.passed = true;
    return r;
  }
  std::vector<workloads::resource_report> resources(const schedule_arguments&) override {
    return {};
  }

 private:
  static timing_stats stats(double ms, const timing_options& o) {
    return {ms, ms * 0.99, ms * 1.02, o.repetitions};
  }
  std::shared_ptr<fake_counters> counters_;
  std::string method_ = "a";
  int level_ = 1;
};

//! The fake and the fake area workload, with tunables, traits and a host-only check.
inline workload_factory fake_area_factory(std::shared_ptr<fake_counters> counters) {
  workload_factory f = fake_factory(counters);
  const auto fake = f;
  f.parameters = [fake](const std::string& name) {
    return name == "fake-area" ? std::vector<workloads::parameter>{} : fake.parameters(name);
  };
  f.make = [fake, counters](const std::string& name,
                            const options_map& options) -> std::unique_ptr<workloads::workload> {
    if (name != "fake-area") return fake.make(name, options);
    ++counters->made;
    return std::make_unique<fake_area_workload>(counters);
  };
  f.tunables = [](const std::string& name) {
    return name == "fake-area" ? fake_area_workload::tunables()
                               : std::vector<workloads::parameter>{};
  };
  f.traits = [](const std::string& name) {
    return name == "fake-area" ? fake_area_workload::fake_area_traits()
                               : workloads::workload_traits{};
  };
  f.validate = [](const std::string& name, const options_map& options) {
    if (name == "fake-area") return fake_area_workload::validate(options);
    (void)fake_workload(options, std::make_shared<fake_counters>());  // parses, counts nothing
  };
  return f;
}

}  // namespace microsched::sweep::testing
