// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file registry_cli.hpp
//! Adds a sample's registry options (registry_option.hpp) to its command line: each with the
//! registry's default and help, in the sample's spelling.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "checked_cli.hpp"
#include "registry_option.hpp"
#include "registry_support.hpp"

namespace microsched::samples {

//! A number checked against [min, max] (programs::add_checked); sets `value` to the default.
template <class T>
CLI::Option* add_registry_checked(CLI::App& app, const registry_options& registry,
                                  std::string_view option, T& value, T min, T max) {
  value = registry.default_value<T>(option);
  return programs::add_checked(app, std::string(option), value, registry.help(option), min, max);
}

//! A whole number that must be one of `allowed` (ascending), checked by parse_checked and then
//! against the list, naming the value; sets `value` to the default.
inline CLI::Option* add_registry_listed(CLI::App& app, const registry_options& registry,
                                        std::string_view option, int& value,
                                        const std::vector<int>& allowed) {
  value = registry.default_value<int>(option);
  const std::string name(option);
  CLI::Option* added = app.add_option(
      name,
      [&value, name, allowed](const CLI::results_t& results) {
        const std::string& text = results.back();
        const int v = programs::parse_checked<int>(name, text, allowed.front(), allowed.back());
        if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
          throw std::invalid_argument(name + " = " + text + ": expected " +
                                      workloads::registry::spell_list(allowed));
        }
        value = v;
        return true;
      },
      registry.help(option));
  added->type_name("INT");
  added->default_str(std::to_string(value));
  return added;
}

//! A value CLI11 parses (chain ->check() for its choices); sets `value` to the default.
template <class T>
CLI::Option* add_registry_option(CLI::App& app, const registry_options& registry,
                                 std::string_view option, T& value) {
  value = registry.default_value<T>(option);
  return app.add_option(std::string(option), value, registry.help(option))->capture_default_str();
}

//! A 0/1 parameter as the flag `option` and its negation `negation` ("--no-..."); `note` follows
//! the registry's help. Sets `value` to the default.
inline CLI::Option* add_registry_flag(CLI::App& app, const registry_options& registry,
                                      std::string_view option, std::string_view negation,
                                      bool& value, const std::string& note) {
  value = registry.default_value<bool>(option);
  return app.add_flag(std::string(option) + ",!" + std::string(negation), value,
                      registry.help(option) + note);
}

}  // namespace microsched::samples
