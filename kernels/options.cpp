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
      throw std::invalid_argument(workload + ": unknown option '" + name + "' (known: " + names + ")");
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

}  // namespace microsched::workloads
