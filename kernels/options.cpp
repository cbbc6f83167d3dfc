// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "options.hpp"

#include <cstdlib>
#include <stdexcept>

namespace microsched::workloads {

void reject_unknown(const std::string& workload, const options_map& options,
                    const std::vector<parameter>& known) {
  for (const auto& [name, value] : options) {
    bool found = false;
    for (const auto& p : known) found = found || p.name == name;
    if (!found) {
      std::string names;
      for (const auto& p : known) names += (names.empty() ? "" : ", ") + p.name;
      throw std::invalid_argument(workload + ": unknown option '" + name + "' (known: " + names +
                                  ")");
    }
  }
}

std::string option_or_default(const options_map& options, const std::vector<parameter>& known,
                              const std::string& name) {
  if (const auto it = options.find(name); it != options.end()) return it->second;
  for (const auto& p : known) {
    if (p.name == name) return p.default_value;
  }
  throw std::invalid_argument("no option named '" + name + "'");
}

long long integer_option(const options_map& options, const std::vector<parameter>& known,
                         const std::string& name, long long min, long long max) {
  const std::string text = option_or_default(options, known, name);
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < min || value > max) {
    throw std::invalid_argument(name + " = " + text + ": expected an integer in " +
                                std::to_string(min) + ".." + std::to_string(max));
  }
  return value;
}

double real_option(const options_map& options, const std::vector<parameter>& known,
                   const std::string& name, double min, double max) {
  const std::string text = option_or_default(options, known, name);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(value >= min && value <= max)) {
    throw std::invalid_argument(name + " = " + text + ": expected a number in " +
                                std::to_string(min) + ".." + std::to_string(max));
  }
  return value;
}

std::optional<std::array<double, 2>> real_pair_option(const options_map& options,
                                                      const std::vector<parameter>& known,
                                                      const std::string& name, double min,
                                                      double max) {
  const std::string text = option_or_default(options, known, name);
  if (text.empty()) return std::nullopt;
  const auto fail = [&]() -> std::invalid_argument {
    return std::invalid_argument(name + " = " + text +
                                 ": expected two numbers A,B (e.g. -0.8,0.156), each in " +
                                 std::to_string(min) + ".." + std::to_string(max));
  };
  const auto comma = text.find(',');
  if (comma == std::string::npos) throw fail();
  std::array<double, 2> value{};
  const std::string parts[2] = {text.substr(0, comma), text.substr(comma + 1)};
  for (int i = 0; i < 2; ++i) {
    char* end = nullptr;
    value[i] = std::strtod(parts[i].c_str(), &end);
    if (parts[i].empty() || *end != '\0' || !(value[i] >= min && value[i] <= max)) throw fail();
  }
  return value;
}

}  // namespace microsched::workloads
