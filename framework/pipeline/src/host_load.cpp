// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/pipeline/host_load.hpp"

#include <charconv>
#include <fstream>
#include <string>

namespace microsched::pipeline {

std::optional<int> parse_loadavg_runnable(std::string_view line) noexcept {
  // Three load averages, then "running/total".
  std::size_t at = 0;
  for (int field = 0; field < 3; ++field) {
    at = line.find(' ', at);
    if (at == std::string_view::npos) return std::nullopt;
    at = line.find_first_not_of(' ', at);
    if (at == std::string_view::npos) return std::nullopt;
  }
  int runnable = 0;
  const char* first = line.data() + at;
  const char* last = line.data() + line.size();
  const auto [end, error] = std::from_chars(first, last, runnable);
  if (error != std::errc{} || end == first || end == last || *end != '/' || runnable < 0)
    return std::nullopt;
  return runnable;
}

std::optional<int> host_runnable_threads() {
  std::ifstream file("/proc/loadavg");
  std::string line;
  if (!file || !std::getline(file, line)) return std::nullopt;
  return parse_loadavg_runnable(line);
}

}  // namespace microsched::pipeline
