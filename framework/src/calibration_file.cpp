// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/calibration_file.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "microsched/schedule/automatic_schedule.hpp"
#include "microsched/schedule/schedule_store.hpp"

namespace microsched {

namespace {
//! Records: the key (program|policy|device|driver) and the size class, then the choice.
constexpr store_kind calibration_kind{"microsched-calibration", 5, 2};
}  // namespace

void save_calibrations(const std::filesystem::path& file) {
  std::vector<store_record> records;
  for (const auto& [key, size_class, chosen] : detail::decided_calibrations()) {
    records.push_back({{key, std::to_string(size_class)}, chosen});
  }
  save_store(file, calibration_kind, records);
}

calibration_load load_calibrations(const std::filesystem::path& file,
                                   const std::string& device_key) {
  calibration_load result;
  std::vector<std::tuple<std::string, int, schedule_arguments>> entries;
  try {
    for (const store_record& r : load_store(file, calibration_kind)) {
      const std::string& key = r.keys[0];
      const std::string& class_text = r.keys[1];
      int size_class = -1;
      const char* end = class_text.data() + class_text.size();
      const auto [stop, ec] = std::from_chars(class_text.data(), end, size_class);
      const auto refuse = [&](const std::string& why) {
        throw std::runtime_error(file.string() + ":" + std::to_string(r.line) + ": " + why);
      };
      if (ec != std::errc{} || stop != end || size_class < 0 || size_class > 64)
        refuse("size class '" + class_text + "' must be in 0..64");
      if (r.schedule.strategy == pool_strategy::automatic) refuse("a choice cannot be automatic");
      const bool here = device_key.empty() || (key.size() >= device_key.size() &&
                                               key.compare(key.size() - device_key.size(),
                                                           device_key.size(), device_key) == 0);
      if (!here) {
        ++result.other_gpus;
        continue;
      }
      entries.emplace_back(key, size_class, r.schedule);
    }
  } catch (const std::exception& e) {
    result.problem =
        std::string("calibration file: ") + e.what() + "; nothing loaded, calibrating as usual";
    result.other_gpus = 0;
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
