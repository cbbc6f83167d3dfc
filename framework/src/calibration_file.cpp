// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/calibration_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <vector>

#include "microsched/schedule/calibration_registry.hpp"
#include "microsched/schedule/schedule_store.hpp"

namespace microsched {

namespace {
//! Records: the key (program|policy|device|driver), the size class and the form, then the choice.
constexpr store_kind calibration_kind{"microsched-calibration", 6, 3};

store_record record_of(const detail::cached_choice& c) {
  return {{c.key, std::to_string(c.size_class), c.form}, c.schedule};
}

//! Every entry of `file`, checked; throws std::runtime_error naming the file and line of the first
//! problem (it cannot be read, a line is malformed, a size class out of range, an automatic choice,
//! an empty form).
std::vector<detail::cached_choice> read_entries(const std::filesystem::path& file) {
  std::vector<detail::cached_choice> entries;
  for (const store_record& r : load_store(file, calibration_kind)) {
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
    if (r.keys[2].empty()) refuse("the form is empty ('-' for none)");
    entries.push_back({r.keys[0], size_class, r.keys[2], r.schedule});
  }
  return entries;
}

//! One entry per key, size class and kind (a plain choice, or a managed-branch program's form).
std::string slot_of(const detail::cached_choice& c) {
  return c.key + "\t" + std::to_string(c.size_class) + "\t" +
         (c.form == detail::plain_form ? "plain" : "form");
}

//! An advisory lock on `file`.lock for the read-merge-write of merge_calibrations(), so that
//! processes that exit together merge in turn; none where the lock file cannot be opened.
class file_lock {
 public:
  explicit file_lock(const std::filesystem::path& file)
      : fd_(::open((file.string() + ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) (void)::flock(fd_, LOCK_EX);
  }
  ~file_lock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;

 private:
  int fd_;
};
}  // namespace

void save_calibrations(const std::filesystem::path& file) {
  std::vector<store_record> records;
  for (const detail::cached_choice& c : detail::decided_calibrations()) {
    records.push_back(record_of(c));
  }
  save_store(file, calibration_kind, records);
}

void merge_calibrations(const std::filesystem::path& file) {
  const file_lock lock(file);
  std::map<std::string, detail::cached_choice> merged;
  try {
    for (const detail::cached_choice& c : read_entries(file)) merged[slot_of(c)] = c;
  } catch (const std::exception&) {
    merged.clear();  // a missing or unreadable file is replaced
  }
  for (const detail::cached_choice& c : detail::decided_calibrations()) {
    const auto [it, fresh] = merged.try_emplace(slot_of(c), c);
    if (!fresh && c.chosen_here) it->second = c;  // the file's is newer than a loaded one
  }
  std::vector<store_record> records;
  for (const auto& [slot, c] : merged) records.push_back(record_of(c));
  save_store(file, calibration_kind, records);
}

calibration_load load_calibrations(const std::filesystem::path& file,
                                   const std::string& device_key) {
  calibration_load result;
  std::vector<detail::cached_choice> entries;
  try {
    for (detail::cached_choice& c : read_entries(file)) {
      const std::string& key = c.key;
      const bool here = device_key.empty() || (key.size() >= device_key.size() &&
                                               key.compare(key.size() - device_key.size(),
                                                           device_key.size(), device_key) == 0);
      if (!here) {
        ++result.other_gpus;
        continue;
      }
      entries.push_back(std::move(c));
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
