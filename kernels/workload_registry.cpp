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

template <class Settings>
registry::entry termination_entry(std::string name, std::vector<parameter> (*parameters)(),
                                  Settings (*parse)(const options_map&),
                                  std::unique_ptr<workload> (*make)(const Settings&)) {
  registry::entry e;
  e.name = std::move(name);
  e.parameters = parameters;
  e.tunables = [] { return std::vector<parameter>{}; };
  e.traits = [] { return workload_traits{}; };
  e.validate = [parse](const options_map& options) { (void)parse(options); };
  e.make = [parse, make](const options_map& options) { return make(parse(options)); };
  return e;
}

std::unique_ptr<workload> make_julia(const julia_settings& s) {
  return make_julia_workload(s);
}

const std::vector<registry::entry>& all_entries() {
  static const std::vector<registry::entry> entries = [] {
    std::vector<registry::entry> all = {
        termination_entry<julia_settings>("julia", julia_parameters, parse_julia_settings,
                                          make_julia),
        termination_entry<montecarlo_settings>("montecarlo", montecarlo_parameters,
                                               parse_montecarlo_settings, make_montecarlo_workload),
        termination_entry<collatz_settings>("collatz", collatz_parameters, parse_collatz_settings,
                                            make_collatz_workload),
        termination_entry<walk_settings>("walk", walk_parameters, parse_walk_settings,
                                         make_walk_workload),
        termination_entry<pathtrace_settings>("pathtrace", pathtrace_parameters,
                                              parse_pathtrace_settings, make_pathtrace_workload)};
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
