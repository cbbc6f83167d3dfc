// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/calibration_file.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "microsched/schedule/calibration_registry.hpp"
#include "microsched/schedule/schedule_store.hpp"

namespace microsched {

namespace {
//! Records: the key (program|policy|device|driver), the size class and the form, then the choice.
constexpr store_kind calibration_kind{"microsched-calibration", 6, 3};
}  // namespace

void save_calibrations(const std::filesystem::path& file) {
  std::vector<store_record> records;
  for (const detail::cached_choice& c : detail::decided_calibrations()) {
    records.push_back({{c.key, std::to_string(c.size_class), c.form}, c.schedule});
  }
  save_store(file, calibration_kind, records);
}

void merge_calibrations(const std::filesystem::path& file) {
  (void)load_calibrations(file);  // seeds only what this process has not chosen
  save_calibrations(file);
}

calibration_load load_calibrations(const std::filesystem::path& file,
                                   const std::string& device_key) {
  calibration_load result;
  std::vector<detail::cached_choice> entries;
  try {
    for (const store_record& r : load_store(file, calibration_kind)) {
      const std::string& key = r.keys[0];
      const std::string& class_text = r.keys[1];
      const std::string& form = r.keys[2];
      int size_class = -1;
      const char* end = class_text.data() + class_text.size();
      const auto [stop, ec] = std::from_chars(class_text.data(), end, size_class);
      const auto refuse = [&](const std::string& why) {
        throw std::runtime_error(file.string() + ":" + std::to_string(r.line) + ": " + why);
      };
      if (ec != std::errc{} || stop != end || size_class < 0 || size_class > 64)
        refuse("size class '" + class_text + "' must be in 0..64");
      if (r.schedule.strategy == pool_strategy::automatic) refuse("a choice cannot be automatic");
      if (form.empty()) refuse("the form is empty ('-' for none)");
      const bool here = device_key.empty() || (key.size() >= device_key.size() &&
                                               key.compare(key.size() - device_key.size(),
                                                           device_key.size(), device_key) == 0);
      if (!here) {
        ++result.other_gpus;
        continue;
      }
      entries.push_back({key, size_class, form, r.schedule});
    }
  } catch (const std::exception& e) {
    result.problem =
        std::string("calibration file: ") + e.what() + "; nothing loaded, calibrating as usual";
    result.other_gpus = 0;
    return result;
  }
  for (const detail::cached_choice& c : entries) detail::seed_calibration(c);
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
