// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The samples' registry tables (samples/common/registry_option.hpp): every row names an option or
// a tunable of the sample's workload, and an absent one is a std::logic_error naming both.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>

#include "registry_option.hpp"

using namespace microsched;
using namespace microsched::samples;

namespace {

bool registered(std::string_view workload) {
  for (const auto& name : workloads::workload_names()) {
    if (name == workload) return true;
  }
  return false;
}

bool area_built(std::string_view area) {
  for (const auto& name : workloads::workload_names()) {
    if (workloads::traits_of(name).area == area) return true;
  }
  return false;
}

//! How often `name` is among the workload's options and tunables together.
std::ptrdiff_t times_named(std::string_view workload, std::string_view name) {
  const auto all = options_and_tunables(std::string(workload));
  return std::count_if(all.begin(), all.end(), [&](const auto& p) { return p.name == name; });
}

}  // namespace

TEST_CASE("sample registry tables: every option names an option or a tunable of the workload") {
  for (const registry_options* table : all_registry_options) {
    CAPTURE(table->sample);
    // A build without the area has neither the workload nor the sample.
    if (!registered(table->workload)) {
      CHECK_FALSE(area_built(table->area));
      continue;
    }
    CHECK(workloads::traits_of(std::string(table->workload)).area == table->area);
    std::set<std::string_view> options;
    std::set<std::string_view> parameters;
    for (const registry_option& row : table->rows) {
      CAPTURE(row.option);
      CHECK(row.option.substr(0, 1) == "-");
      CHECK(options.insert(row.option).second);
      CHECK(parameters.insert(row.parameter).second);
      // Named once: an option and a tunable of the same name would leave the row ambiguous.
      CHECK(times_named(table->workload, row.parameter) == 1);
      const workloads::parameter p = table->parameter(row.option);
      CHECK(p.name == row.parameter);
      CHECK_FALSE(table->help(row.option).empty());
      // A sample's own default or help is there for a reason only where it differs from the
      // registry's.
      if (!row.sample_default.empty()) CHECK(row.sample_default != p.default_value);
      if (!row.sample_help.empty()) CHECK(row.sample_help != p.help);
    }
  }
}

TEST_CASE("sample registry tables: the defaults parse to the samples' option types") {
  if (registered("raycast")) {
    CHECK(raycast_options.default_value<int>("--width") > 0);
    CHECK(raycast_options.default_value<int>("--height") > 0);
    CHECK(raycast_options.default_value<float>("--step") > 0.0f);
    CHECK(raycast_options.default_value<int>("--window") > 0);
    CHECK(raycast_options.default_value<bool>("--skip-empty"));
    CHECK(raycast_options.default_value<bool>("--center-first"));
    CHECK(raycast_options.help("--skip-empty").substr(0, 3) != "1: ");
    CHECK(raycast_options.default_value<int>("--contexts") == 128);
    CHECK(raycast_options.default_value<int>("--switch-every") == 1);
    CHECK(raycast_options.help("--switch-every") == switching_switch_every_help);
  }
  if (registered("montecarlo-branch")) {
    const float p = montecarlo_branch_options.default_value<float>("--p");
    CHECK((p >= 0.0f && p <= 1.0f));
    CHECK(montecarlo_branch_options.default_value<std::uint64_t>("--tasks") > 0);
    CHECK(montecarlo_branch_options.default_value<std::uint32_t>("--outer") > 0);
    CHECK(montecarlo_branch_options.default_value<std::uint32_t>("--inner") > 0);
    (void)montecarlo_branch_options.default_value<unsigned long long>("--seed");
    CHECK(montecarlo_branch_options.default_value<int>("--contexts") == 128);
    CHECK(montecarlo_branch_options.default_value<int>("--switch-every") == 1);
    CHECK(montecarlo_branch_options.help("--switch-every") == switching_switch_every_help);
  }
  if (registered("micro-branch")) {
    CHECK(remap_micro_options.default_value<int>("-n") > 0);
    CHECK(remap_micro_options.default_value<int>("--paths") == 2);
    CHECK(remap_micro_options.default_value<int>("--work") >= 0);
    CHECK(remap_micro_options.default_value<int>("--block") == 256);
    CHECK(remap_micro_options.default_value<std::string>("--distribution") == "balanced");
    CHECK(remap_micro_options.default_value<std::string>("--variant") == "hot");
    CHECK(remap_micro_options.default_value<int>("--neighbouring") == 16);
    // The sample's --variant choices are the registry's methods, which its help lists.
    CHECK(remap_micro_options.help("--variant").find("original, hot, hot16 or dgi") !=
          std::string::npos);
  }
}

TEST_CASE("sample registry tables: a missing parameter, workload or row is a logic error") {
  CHECK_THROWS_WITH_AS(
      (void)registry_parameter("julia", "no-such"),
      "workload 'julia', parameter 'no-such': the registry has no such option or tunable",
      std::logic_error);
  CHECK_THROWS_AS((void)registry_parameter("no-such-workload", "width"), std::logic_error);
  CHECK(registry_parameter("julia", "width").name == "width");
  if (registered("raycast")) CHECK(registry_parameter("raycast", "contexts").name == "contexts");
  CHECK_THROWS_WITH_AS((void)raycast_options.row("--no-such"),
                       "sample 'raycast': option '--no-such' is not in its registry table",
                       std::logic_error);
  static constexpr registry_option rows[] = {{"--colour", "colour"}};
  const registry_options table{"julia", "termination", "julia", rows};
  CHECK_THROWS_WITH_AS(
      (void)table.default_value<int>("--colour"),
      "workload 'julia', parameter 'colour': the registry has no such option or tunable",
      std::logic_error);
  CHECK_THROWS_AS((void)parse_registry_default<int>("w", "0x0"), std::logic_error);
  CHECK_THROWS_AS((void)parse_registry_default<bool>("w", "yes"), std::logic_error);
  CHECK(parse_registry_default<double>("w", "0.05") == doctest::Approx(0.05));
}
