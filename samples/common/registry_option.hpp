// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file registry_option.hpp
//! The sample options that are parameters of the registry workload the sample runs, its options
//! (workloads::workload_parameters) or its tunables (workloads::workload_tunables): a sample
//! takes their defaults and help from the registry, so that the sample, the benchmarks and the
//! sweep tool agree. The tables below map each such option, in the sample's spelling, to the
//! registry's name; tests/host/test_registry_options.cpp checks that every row names an option
//! or a tunable. Host only and without CLI11 (registry_cli.hpp adds the options to a command
//! line).

#include <charconv>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "workload.hpp"

namespace microsched::samples {

//! The registry's options of `workload`, then its tunables. Throws std::invalid_argument for an
//! unknown workload.
[[nodiscard]] inline std::vector<workloads::parameter> options_and_tunables(
    const std::string& workload) {
  std::vector<workloads::parameter> all = workloads::workload_parameters(workload);
  const std::vector<workloads::parameter> tunables = workloads::workload_tunables(workload);
  all.insert(all.end(), tunables.begin(), tunables.end());
  return all;
}

//! The registry's parameter `name` of `workload`: an option, else a tunable. A sample names both
//! in its code, so an absent one is a programming error: std::logic_error naming both.
[[nodiscard]] inline workloads::parameter registry_parameter(std::string_view workload,
                                                             std::string_view name) {
  const std::string where =
      "workload '" + std::string(workload) + "', parameter '" + std::string(name) + "'";
  std::vector<workloads::parameter> parameters;
  try {
    parameters = options_and_tunables(std::string(workload));
  } catch (const std::invalid_argument& e) {
    throw std::logic_error(where + ": the registry has no such workload (" + e.what() + ")");
  }
  for (const auto& p : parameters) {
    if (p.name == name) return p;
  }
  throw std::logic_error(where + ": the registry has no such option or tunable");
}

//! `text`, a registry default, as a T: a number of T's type, "0" or "1" for bool, any string.
//! Throws std::logic_error naming `what` otherwise.
template <class T>
[[nodiscard]] T parse_registry_default(const std::string& what, const std::string& text) {
  if constexpr (std::is_same_v<T, std::string>) {
    return text;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (text != "0" && text != "1") {
      throw std::logic_error(what + ": default '" + text + "' is not 0 or 1");
    }
    return text == "1";
  } else {
    static_assert(std::is_arithmetic_v<T>, "registry defaults: numbers, bool or std::string");
    T value{};
    const char* last = text.data() + text.size();
    const auto [end, ec] = std::from_chars(text.data(), last, value);
    if (ec != std::errc() || end != last || text.empty()) {
      throw std::logic_error(what + ": default '" + text +
                             "' is not a number of the option's type");
    }
    return value;
  }
}

//! One sample option that sets a registry parameter (an option or a tunable).
struct registry_option {
  std::string_view option;     //!< the sample's spelling: "--block"
  std::string_view parameter;  //!< the registry's name: "block-threads"
  //! Empty: the registry's default. Otherwise the sample's own, for the reason beside the row.
  std::string_view sample_default = {};
  //! Empty: the registry's help. Otherwise the sample's own, for the reason beside the row.
  std::string_view sample_help = {};
};

//! A sample's registry options: the workload it runs, and one row per option.
struct registry_options {
  std::string_view sample;
  std::string_view area;  //!< the workload's area: a build without it has neither
  std::string_view workload;
  std::span<const registry_option> rows;

  //! The row of `option`; std::logic_error naming the sample and the option if none.
  [[nodiscard]] const registry_option& row(std::string_view option) const {
    for (const auto& r : rows) {
      if (r.option == option) return r;
    }
    throw std::logic_error("sample '" + std::string(sample) + "': option '" + std::string(option) +
                           "' is not in its registry table");
  }

  //! The registry's parameter behind `option`.
  [[nodiscard]] workloads::parameter parameter(std::string_view option) const {
    return registry_parameter(workload, row(option).parameter);
  }

  //! The option's default as a T: the registry's, or the row's own where it has one.
  template <class T>
  [[nodiscard]] T default_value(std::string_view option) const {
    const registry_option& r = row(option);
    const workloads::parameter p = registry_parameter(workload, r.parameter);
    const std::string text =
        r.sample_default.empty() ? p.default_value : std::string(r.sample_default);
    return parse_registry_default<T>(
        "workload '" + std::string(workload) + "', parameter '" + p.name + "'", text);
  }

  //! The registry's help, or the row's own where it has one; for a 0/1 parameter ("1: what it
  //! does") what it does, the flag's help.
  [[nodiscard]] std::string help(std::string_view option) const {
    const registry_option& r = row(option);
    if (!r.sample_help.empty()) return std::string(r.sample_help);
    std::string text = parameter(option).help;
    if (text.rfind("1: ", 0) == 0) text.erase(0, 3);
    return text;
  }
};

// The samples' tables. Julia and montecarlo add every registry parameter as an option of the same
// name (add_workload_options), so they need none.

//! --switch-every of the switching samples (switching_cli.hpp), which also have --default-then.
inline constexpr std::string_view switching_switch_every_help =
    "deferred switching: vote and switch every n-th visit of the branch, follow the default path "
    "otherwise (1 = immediate)";

//! samples/switching/raycast_main.cpp.
inline constexpr registry_option raycast_rows[] = {
    {"--width", "width"},
    {"--height", "height"},
    {"--step", "step"},
    {"--window", "window"},
    // Skipping is exact (the same image, fewer samples), so the sample skips by default.
    {"--skip-empty", "skip-empty", "1"},
    // Expensive tiles first shorten the tail of the sample's fixed schedules (chunk 4, fifo).
    {"--center-first", "center-first", "1"},
    // At the sample's 512x512 image the fixed schedules are tuned with 128 (bench_switching).
    {"--contexts", "contexts", "128"},
    // The sample's help says what the visits between votes do: they follow --default-then.
    {"--switch-every", "switch-every", {}, switching_switch_every_help}};
inline constexpr registry_options raycast_options{"raycast", "switching", "raycast", raycast_rows};

//! samples/switching/montecarlo_branch_main.cpp.
inline constexpr registry_option montecarlo_branch_rows[] = {
    {"--p", "p"},
    {"--tasks", "tasks"},
    {"--outer", "outer"},
    {"--inner", "inner"},
    {"--seed", "seed"},
    // 128 is the fastest pool size on this workload, the one its default schedule runs.
    {"--contexts", "contexts", "128"},
    // The sample's help says what the visits between votes do: they follow --default-then.
    {"--switch-every", "switch-every", {}, switching_switch_every_help}};
inline constexpr registry_options montecarlo_branch_options{
    "montecarlo_branch", "switching", "montecarlo-branch", montecarlo_branch_rows};

//! samples/remap/remap_micro.cu.
inline constexpr registry_option remap_micro_rows[] = {
    {"-n", "n"},
    {"--paths", "paths"},
    {"--work", "work"},
    {"--distribution", "distribution"},
    {"--block", "block-threads"},
    // Head-or-Tail is the remap for two paths, the sample's default --paths (docs/remap.md).
    {"--variant", "method", "hot"},
    {"--neighbouring", "neighbouring"}};
inline constexpr registry_options remap_micro_options{"remap_micro", "remap", "micro-branch",
                                                      remap_micro_rows};

//! Every table, for the test.
inline constexpr const registry_options* all_registry_options[] = {
    &raycast_options, &montecarlo_branch_options, &remap_micro_options};

}  // namespace microsched::samples
