// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "registry_support.hpp"

#include <algorithm>
#include <stdexcept>

#include "microsched/error.hpp"
#include "options.hpp"

namespace microsched::workloads::registry {

options_map select(const options_map& options, const std::vector<parameter>& known) {
  options_map out;
  for (const auto& [name, value] : options) {
    if (std::any_of(known.begin(), known.end(), [&](const parameter& p) { return p.name == name; }))
      out[name] = value;
  }
  return out;
}

std::vector<parameter> joined(std::vector<parameter> known, const std::vector<parameter>& more) {
  known.insert(known.end(), more.begin(), more.end());
  return known;
}

std::string spell_list(const std::vector<std::string>& items) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  }
  return text;
}

std::string spell_list(const std::vector<int>& items) {
  std::vector<std::string> text;
  for (const int i : items) text.push_back(std::to_string(i));
  return spell_list(text);
}

std::string choice_option(const options_map& options, const std::vector<parameter>& known,
                          const std::string& name, const std::vector<std::string>& allowed) {
  const std::string value = option_or_default(options, known, name);
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    throw std::invalid_argument(name + " = " + value + ": expected " + spell_list(allowed));
  }
  return value;
}

int listed_integer_option(const options_map& options, const std::vector<parameter>& known,
                          const std::string& name, const std::vector<int>& allowed) {
  const std::string text = option_or_default(options, known, name);
  for (const int v : allowed) {
    if (text == std::to_string(v)) return v;
  }
  throw std::invalid_argument(name + " = " + text + ": expected " + spell_list(allowed));
}

verification_report compare_outputs(const std::vector<std::uint32_t>& got,
                                    const std::vector<std::uint32_t>& want, std::uint64_t tasks,
                                    std::uint64_t words_per_task) {
  verification_report r;
  r.tasks = tasks;
  if (got.size() != want.size()) {
    r.mismatched = tasks;
    r.detail = "the run wrote " + std::to_string(got.size()) + " output words, the reference " +
               std::to_string(want.size());
    return r;
  }
  constexpr std::uint32_t poison = 0xffffffffu;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) continue;
    const bool missing = got[i] == poison;
    ++(missing ? r.missing : r.mismatched);
    if (r.detail.size() < 300) {
      r.detail += "task " + std::to_string(i / std::max<std::uint64_t>(1, words_per_task)) +
                  (missing ? ": never written; "
                           : ": " + std::to_string(got[i]) + " != reference " +
                                 std::to_string(want[i]) + "; ");
    }
  }
  r.passed = r.missing == 0 && r.duplicated == 0 && r.mismatched == 0;
  return r;
}

void no_reference(const std::string& workload, const char* reference, const std::string& why) {
  throw std::invalid_argument(workload + " has no " + reference + " reference: " + why);
}

}  // namespace microsched::workloads::registry
