// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/sweep/tuning_file.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

#include "microsched/device.hpp"
#include "microsched/schedule/schedule_store.hpp"

namespace microsched::sweep {

namespace {
//! Records: gpu, workload, scenario, median ms, note, then the schedule. Version 4: the one
//! store (schedule_store.hpp); 1 to 3 were JSON.
constexpr store_kind tuning_kind{"microsched-tuning", 4, 5};

std::string milliseconds_text(double ms) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, ms);
  return ec == std::errc{} ? std::string(buffer, end) : std::string("0");
}

double milliseconds_of(const std::string& text) {
  double ms = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (ec != std::errc{} || end != text.data() + text.size() || !(ms >= 0)) {
    throw std::invalid_argument("median ms '" + text + "' is not a time of 0 or more");
  }
  return ms;
}

std::vector<store_record> records_of(const std::vector<tuning_entry>& entries) {
  std::vector<store_record> records;
  for (const auto& e : entries) {
    records.push_back(
        {{e.gpu, e.workload, e.scenario, milliseconds_text(e.median_ms), e.note}, e.schedule});
  }
  return records;
}
}  // namespace

std::string tuning_table::to_text() const {
  return store_text(tuning_kind, records_of(entries_));
}

tuning_table tuning_table::parse(const std::string& text, const std::string& origin) {
  if (!text.empty() && text.front() == '{') {
    throw std::runtime_error(origin +
                             ":1: starts with '{', as the JSON tuning files of older sweeps "
                             "did, which this version does not read; let the sweep write a new "
                             "one with --save-tuning (to another path, or after removing this "
                             "one: it is not overwritten)");
  }
  tuning_table table;
  try {
    for (const store_record& r : parse_store(text, tuning_kind, origin)) {
      tuning_entry e;
      e.gpu = r.keys[0];
      e.workload = r.keys[1];
      e.scenario = r.keys[2];
      e.note = r.keys[4];
      e.schedule = r.schedule;
      try {
        e.median_ms = milliseconds_of(r.keys[3]);
        if (e.gpu.empty() || e.workload.empty()) {
          throw std::invalid_argument("gpu and workload must not be empty");
        }
      } catch (const std::invalid_argument& err) {
        throw std::invalid_argument(origin + ":" + std::to_string(r.line) + ": " + err.what());
      }
      table.set(e);
    }
  } catch (const std::invalid_argument& err) {
    throw std::runtime_error(err.what());
  }
  return table;
}

tuning_table tuning_table::load(const std::filesystem::path& file) {
  return parse(read_store_text(file), "tuning file '" + file.string() + "'");
}

tuning_table tuning_table::load_or_empty(const std::filesystem::path& file) {
  return std::filesystem::exists(file) ? load(file) : tuning_table{};
}

void tuning_table::save(const std::filesystem::path& file) const {
  save_store(file, tuning_kind, records_of(entries_));
}

void tuning_table::set(const tuning_entry& entry) {
  for (auto& e : entries_) {
    if (e.gpu == entry.gpu && e.workload == entry.workload && e.scenario == entry.scenario) {
      e = entry;
      return;
    }
  }
  entries_.push_back(entry);
}

std::optional<tuning_entry> tuning_table::find_exact(const std::string& gpu,
                                                     const std::string& workload,
                                                     const std::string& scenario) const {
  for (const auto& e : entries_) {
    if (e.gpu == gpu && e.workload == workload && e.scenario == scenario) return e;
  }
  return std::nullopt;
}

std::optional<tuning_entry> tuning_table::find(const std::string& gpu, const std::string& workload,
                                               const std::string& scenario) const {
  if (!scenario.empty()) {
    if (auto e = find_exact(gpu, workload, scenario)) return e;
  }
  return find_exact(gpu, workload, "");
}

std::optional<std::filesystem::path> tuning_file_path(const std::filesystem::path& file) {
  if (!file.empty()) return file;
  if (const char* env = std::getenv(tuning_file_variable); env != nullptr && *env != '\0') {
    return std::filesystem::path(env);
  }
  return std::nullopt;
}

std::optional<schedule_arguments> find_tuned_schedule(const std::string& workload,
                                                      const std::string& scenario,
                                                      const std::filesystem::path& file,
                                                      const std::string& gpu) {
  const auto path = tuning_file_path(file);
  if (!path || !std::filesystem::exists(*path)) return std::nullopt;
  const tuning_table table = tuning_table::load(*path);
  const auto entry = table.find(gpu.empty() ? current_device().name : gpu, workload, scenario);
  if (!entry) return std::nullopt;
  return entry->schedule;
}

schedule_arguments tuned_schedule(const std::string& workload, const schedule_arguments& fallback,
                                  const std::string& scenario, const std::filesystem::path& file) {
  return find_tuned_schedule(workload, scenario, file).value_or(fallback);
}

}  // namespace microsched::sweep
