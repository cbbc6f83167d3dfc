// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/calibration_file.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "microsched/error.hpp"
#include "microsched/io/atomic_file.hpp"
#include "microsched/schedule/automatic_schedule.hpp"
#include "microsched/schedule/schedule_text.hpp"

namespace microsched {

namespace {
constexpr const char* header = "microsched-calibration 5";
}  // namespace

void save_calibrations(const std::filesystem::path& file) {
  std::ostringstream out;
  out << header << '\n';
  for (const auto& [key, size_class, chosen] : detail::decided_calibrations()) {
    out << key << '\t' << size_class << '\t' << schedule_text(chosen) << '\n';
  }
  write_file_atomically(file, out.str());
}

calibration_load load_calibrations(const std::filesystem::path& file,
                                   const std::string& device_key) {
  calibration_load result;
  std::ifstream in(file);
  if (!in) {
    result.problem = "cannot read calibration file " + file.string() + "; calibrating as usual";
    return result;
  }
  std::vector<std::tuple<std::string, int, schedule_arguments>> entries;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (number == 1) {
      if (line != header) {
        result.problem = file.string() +
                         ":1: not a microsched calibration file of this version "
                         "(expected '" +
                         std::string(header) +
                         "'); nothing loaded, calibrating "
                         "as usual";
        return result;
      }
      continue;
    }
    if (line.empty()) continue;
    const auto tab1 = line.find('\t');
    const auto tab2 = tab1 == std::string::npos ? tab1 : line.find('\t', tab1 + 1);
    try {
      if (tab2 == std::string::npos)
        throw std::invalid_argument("expected three tab-separated fields");
      const std::string key = line.substr(0, tab1);
      const std::string class_text = line.substr(tab1 + 1, tab2 - tab1 - 1);
      std::size_t used = 0;
      const int size_class = std::stoi(class_text, &used);
      if (used != class_text.size() || size_class < 0 || size_class > 64)
        throw std::invalid_argument("size class '" + class_text + "' must be in 0..64");
      const schedule_arguments chosen = parse_schedule_text(line.substr(tab2 + 1));
      if (chosen.strategy == pool_strategy::automatic)
        throw std::invalid_argument("a choice cannot be automatic");
      const bool here = device_key.empty() || (key.size() >= device_key.size() &&
                                               key.compare(key.size() - device_key.size(),
                                                           device_key.size(), device_key) == 0);
      if (!here) {
        ++result.other_gpus;
        continue;
      }
      entries.emplace_back(key, size_class, chosen);
    } catch (const std::exception& e) {
      result.problem = file.string() + ":" + std::to_string(number) + ": " + e.what() +
                       "; nothing loaded, calibrating as usual";
      return result;
    }
  }
  if (number == 0 || in.bad()) {
    result.problem = "calibration file " + file.string() +
                     " is empty or cannot be read; nothing loaded, calibrating as usual";
    return result;
  }
  for (const auto& [key, size_class, chosen] : entries)
    detail::seed_calibration(key, size_class, chosen);
  result.loaded = static_cast<int>(entries.size());
  return result;
}

std::optional<std::filesystem::path> calibration_cache_file() {
  const auto variable = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value == nullptr ? std::string() : std::string(value);
  };
  const std::string mode = variable("MICROSCHED_CACHE");
  if (mode == "off" || mode == "0") return std::nullopt;
  std::filesystem::path folder = variable("MICROSCHED_CACHE_DIR");
  if (folder.empty()) {
    if (const std::string xdg = variable("XDG_CACHE_HOME"); !xdg.empty()) {
      folder = std::filesystem::path(xdg) / "microsched";
    } else if (const std::string home = variable("HOME"); !home.empty()) {
      folder = std::filesystem::path(home) / ".cache" / "microsched";
    } else {
      return std::nullopt;
    }
  }
  return folder / "calibration.txt";
}

}  // namespace microsched
