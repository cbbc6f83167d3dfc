// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/calibration_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string_view>
#include <thread>
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

//! Every entry of a calibration file's `text`, checked; throws std::runtime_error naming `origin`
//! and the line of the first problem (a malformed line, a size class out of range, an automatic
//! choice, an empty form).
std::vector<detail::cached_choice> parse_entries(std::string_view text, const std::string& origin) {
  std::vector<detail::cached_choice> entries;
  std::vector<store_record> records;
  try {
    records = parse_store(text, calibration_kind, origin);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
  for (const store_record& r : records) {
    const std::string& class_text = r.keys[1];
    int size_class = -1;
    const char* end = class_text.data() + class_text.size();
    const auto [stop, ec] = std::from_chars(class_text.data(), end, size_class);
    const auto refuse = [&](const std::string& why) {
      throw std::runtime_error(origin + ":" + std::to_string(r.line) + ": " + why);
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

//! An advisory lock on `file`.lock (links resolved, so that every name of the file takes one
//! lock) for the read-merge-write of merge_calibrations(); it waits at most `wait_s` for a peer,
//! so that no exit hangs behind a stopped one, and says on stderr when it goes on unlocked.
class file_lock {
 public:
  explicit file_lock(const std::filesystem::path& file, double wait_s = 10) {
    std::error_code ec;
    std::filesystem::path target = std::filesystem::weakly_canonical(file, ec);
    if (ec) target = file;
    const std::string lock = target.string() + ".lock";
    fd_ = ::open(lock.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd_ < 0) fd_ = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);  // another user's lock file
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
    bool locked = false;
    while (fd_ >= 0 && !locked) {
      locked = ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
      if (locked) break;
      if ((errno != EWOULDBLOCK && errno != EINTR) || std::chrono::steady_clock::now() > deadline)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!locked) {
      std::fprintf(stderr, "microsched: %s: merging without the lock %s\n", file.c_str(),
                   lock.c_str());
    }
  }
  ~file_lock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;

 private:
  int fd_ = -1;
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
  std::error_code ec;
  if (std::filesystem::exists(file, ec) || ec) {
    const std::string text = read_store_text(file);  // throws: unreadable, left as it is
    const int version = store_version(text, calibration_kind);
    if (version > calibration_kind.version) {
      throw std::runtime_error(file.string() + ": version " + std::to_string(version) +
                               ", a newer microsched's: left as it is");
    }
    try {
      for (const auto& c : parse_entries(text, file.string())) merged[slot_of(c)] = c;
    } catch (const std::exception&) {
      merged.clear();  // an older or corrupt file, which no process can read: replaced
    }
  }
  for (const detail::cached_choice& c : detail::decided_calibrations()) {
    if (c.chosen_here) merged[slot_of(c)] = c;
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
    for (detail::cached_choice& c : parse_entries(read_store_text(file), file.string())) {
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
