// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The one registry of workloads: the termination workloads of this library, then the workloads
// of each area built, which the area lists itself (switching/switching_registry.cpp,
// remap/remap_registry.cu, pipeline/pipeline_registry.cpp), so that every area has one shape.
#include <stdexcept>

#include "collatz/collatz_workload.hpp"
#include "julia/julia_workload.hpp"
#include "montecarlo/montecarlo_workload.hpp"
#include "pathtrace/pathtrace_workload.hpp"
#include "registry_support.hpp"
#include "walk/walk_workload.hpp"
#include "workload.hpp"

namespace microsched::workloads {

namespace {

const std::vector<registry::entry>& all_entries() {
  using registry::entry_of;
  static const std::vector<registry::entry> entries = [] {
    std::vector<registry::entry> all = {
        entry_of<julia_settings>({.name = "julia",
                                  .parameters = julia_parameters,
                                  .parse = parse_julia_settings,
                                  .build = make_julia_workload}),
        entry_of<montecarlo_settings>({.name = "montecarlo",
                                       .parameters = montecarlo_parameters,
                                       .parse = parse_montecarlo_settings,
                                       .build = make_montecarlo_workload}),
        entry_of<collatz_settings>({.name = "collatz",
                                    .parameters = collatz_parameters,
                                    .parse = parse_collatz_settings,
                                    .build = make_collatz_workload}),
        entry_of<walk_settings>({.name = "walk",
                                 .parameters = walk_parameters,
                                 .parse = parse_walk_settings,
                                 .build = make_walk_workload}),
        entry_of<pathtrace_settings>({.name = "pathtrace",
                                      .parameters = pathtrace_parameters,
                                      .parse = parse_pathtrace_settings,
                                      .build = make_pathtrace_workload})};
    for (auto* area :
         {&registry::switching_entries, &registry::remap_entries, &registry::pipeline_entries}) {
      for (auto& e : area()) all.push_back(std::move(e));
    }
    return all;
  }();
  return entries;
}

const registry::entry& find(const std::string& name) {
  for (const auto& e : all_entries()) {
    if (e.name == name) return e;
  }
  std::string names;
  for (const auto& e : all_entries()) names += (names.empty() ? "" : ", ") + e.name;
  throw std::invalid_argument("workload '" + name + "': expected one of " + names);
}

}  // namespace

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const auto& e : all_entries()) names.push_back(e.name);
  return names;
}

std::vector<parameter> workload_parameters(const std::string& name) {
  return find(name).parameters();
}

std::vector<parameter> workload_tunables(const std::string& name) {
  return find(name).tunables();
}

workload_traits traits_of(const std::string& name) {
  return find(name).traits();
}

void validate_workload_options(const std::string& name, const options_map& options) {
  find(name).validate(options);
}

std::unique_ptr<workload> make_workload(const std::string& name, const options_map& options) {
  return find(name).make(options);
}

}  // namespace microsched::workloads
