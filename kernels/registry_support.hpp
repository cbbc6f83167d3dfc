// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file registry_support.hpp
//! What the registry (workload_registry.cpp) and the areas' lists of entries share: how a
//! registered workload is described to the registry, option helpers over a fixed set of values,
//! and the output comparison and missing-reference error behind the area workloads' checks.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "options.hpp"
#include "workload.hpp"

namespace microsched::workloads::registry {

//! One registered workload of an area: what the registry answers for its name.
struct entry {
  std::string name;
  std::function<std::vector<parameter>()> parameters;  //!< options the workload is built from
  std::function<std::vector<parameter>()> tunables;    //!< per-run settings (set_tunables)
  std::function<workload_traits()> traits;
  //! Parses options and tunables on the host (no GPU); throws std::invalid_argument.
  std::function<void(const options_map&)> validate;
  //! Builds the workload from its options, then sets the tunables `options` holds.
  std::function<std::unique_ptr<workload>(const options_map&)> make;
};

//! The entries of `options` whose names `known` lists.
[[nodiscard]] options_map select(const options_map& options, const std::vector<parameter>& known);

//! `known` and `more`, one after the other.
[[nodiscard]] std::vector<parameter> joined(std::vector<parameter> known,
                                            const std::vector<parameter>& more);

//! What entry_of builds an entry from: the options parse to `Settings` on the host, the tunables
//! are checked against them, and the workload is built from them.
template <class Settings>
struct entry_parts {
  std::string name;
  std::function<std::vector<parameter>()> parameters;
  std::function<Settings(const options_map&)> parse;  //!< throws std::invalid_argument
  std::function<std::unique_ptr<workload>(const Settings&)> build;
  std::function<workload_traits()> traits = [] { return workload_traits{}; };
  std::function<std::vector<parameter>()> tunables = [] { return std::vector<parameter>{}; };
  //! Throws std::invalid_argument for a tunable the settings do not allow.
  std::function<void(const options_map&, const Settings&)> check_tunables = [](const options_map&,
                                                                               const Settings&) {};
};

//! entry_parts::build for a workload class constructed from its settings.
template <class Workload, class Settings>
[[nodiscard]] std::unique_ptr<workload> build_as(const Settings& settings) {
  return std::make_unique<Workload>(settings);
}

//! The registry entry of `parts`. Every option and tunable is checked on the host before the
//! workload touches the GPU; the workload is then built and given its tunables.
template <class Settings>
[[nodiscard]] entry entry_of(entry_parts<Settings> parts) {
  const auto checked = [parts](const options_map& options) {
    reject_unknown(parts.name, options, joined(parts.parameters(), parts.tunables()));
    Settings settings = parts.parse(select(options, parts.parameters()));
    parts.check_tunables(select(options, parts.tunables()), settings);
    return settings;
  };
  entry e;
  e.name = parts.name;
  e.parameters = parts.parameters;
  e.tunables = parts.tunables;
  e.traits = parts.traits;
  e.validate = [checked](const options_map& options) { (void)checked(options); };
  e.make = [parts, checked](const options_map& options) {
    std::unique_ptr<workload> w = parts.build(checked(options));
    w->set_tunables(select(options, parts.tunables()));
    return w;
  };
  return e;
}

//! The area workloads of this build. Each area lists its own (switching/switching_registry.cpp,
//! remap/remap_registry.cu, pipeline/pipeline_registry.cpp); an area the build leaves out lists
//! none (registry_absent_areas.cpp).
[[nodiscard]] std::vector<entry> switching_entries();
[[nodiscard]] std::vector<entry> remap_entries();
[[nodiscard]] std::vector<entry> pipeline_entries();

//! The option's value, which must be one of `allowed`; throws std::invalid_argument naming the
//! option, the value and the allowed ones otherwise.
[[nodiscard]] std::string choice_option(const options_map& options,
                                        const std::vector<parameter>& known,
                                        const std::string& name,
                                        const std::vector<std::string>& allowed);

//! An integer option that must be one of `allowed` (e.g. the compiled pool sizes).
[[nodiscard]] int listed_integer_option(const options_map& options,
                                        const std::vector<parameter>& known,
                                        const std::string& name, const std::vector<int>& allowed);

//! "16, 32, 64 or 128"
[[nodiscard]] std::string spell_list(const std::vector<std::string>& items);
[[nodiscard]] std::string spell_list(const std::vector<int>& items);

//! A run's outputs (32-bit words, floats as their bits) against the reference's, after the run's
//! were poisoned with 0xffffffff: a word still poisoned where the reference is not counts as
//! missing (its task never wrote it), any other difference as mismatched. `tasks` is the number
//! of tasks the outputs belong to; `words_per_task` maps a word to its task for the details.
[[nodiscard]] verification_report compare_outputs(const std::vector<std::uint32_t>& got,
                                                  const std::vector<std::uint32_t>& want,
                                                  std::uint64_t tasks,
                                                  std::uint64_t words_per_task);

//! Throws std::invalid_argument saying the workload has no such reference and why.
[[noreturn]] void no_reference(const std::string& workload, const char* reference,
                               const std::string& why);

}  // namespace microsched::workloads::registry
