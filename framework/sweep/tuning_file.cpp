// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/sweep/tuning_file.hpp"

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "microsched/device.hpp"
#include "microsched/io/atomic_file.hpp"
#include "microsched/schedule/schedule_text.hpp"

namespace microsched::sweep {

namespace {
using json = nlohmann::json;

constexpr const char* format_name = "microsched-tuning";
//! 3: the schedule in the one text form (schedule_text.hpp); 2 held it as a JSON object, 1 held
//! five of its fields.
constexpr int format_version = 3;
}  // namespace

std::string tuning_table::to_json() const {
  json entries = json::array();
  for (const auto& e : entries_) {
    entries.push_back({{"gpu", e.gpu},
                       {"workload", e.workload},
                       {"scenario", e.scenario},
                       {"schedule", schedule_text(e.schedule)},
                       {"median_ms", e.median_ms},
                       {"note", e.note}});
  }
  const json doc = {{"format", format_name}, {"version", format_version}, {"entries", entries}};
  return doc.dump(2) + "\n";
}

tuning_table tuning_table::parse(const std::string& json_text, const std::string& origin) {
  tuning_table table;
  try {
    const json doc = json::parse(json_text);
    if (doc.value("format", "") != format_name) {
      throw std::invalid_argument("not a microsched tuning file (\"format\" is not \"" +
                                  std::string(format_name) + "\")");
    }
    const json& version = doc.at("version");
    if (version == 1) {
      throw std::invalid_argument(
          "version 1 stores five fields of a schedule and drops budget, period and switching; "
          "run the sweep with --save-tuning again to write version " +
          std::to_string(format_version));
    }
    if (version == 2) {
      throw std::invalid_argument(
          "version 2 stores a schedule as a JSON object; run the sweep with --save-tuning again "
          "to write version " +
          std::to_string(format_version) + ", whose schedule is one schedule_text string");
    }
    if (!version.is_number_unsigned() || version != format_version) {
      throw std::invalid_argument("version " + version.dump() + " is not supported (" +
                                  std::to_string(format_version) + " is)");
    }
    std::size_t index = 0;
    for (const auto& j : doc.at("entries")) {
      try {
        tuning_entry e;
        e.gpu = j.at("gpu").get<std::string>();
        e.workload = j.at("workload").get<std::string>();
        e.scenario = j.value("scenario", "");
        const json& schedule = j.at("schedule");
        if (!schedule.is_string()) throw std::invalid_argument("\"schedule\" is not a string");
        e.schedule = parse_schedule_text(schedule.get<std::string>());
        e.median_ms = j.value("median_ms", 0.0);
        e.note = j.value("note", "");
        if (e.gpu.empty() || e.workload.empty()) {
          throw std::invalid_argument("gpu and workload must not be empty");
        }
        table.set(e);
      } catch (const std::exception& err) {
        throw std::invalid_argument("entry " + std::to_string(index) + ": " + err.what());
      }
      ++index;
    }
  } catch (const std::exception& err) {
    throw std::runtime_error(origin + ": " + err.what());
  }
  return table;
}

tuning_table tuning_table::load(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read tuning file '" + file.string() + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), "tuning file '" + file.string() + "'");
}

tuning_table tuning_table::load_or_empty(const std::filesystem::path& file) {
  return std::filesystem::exists(file) ? load(file) : tuning_table{};
}

void tuning_table::save(const std::filesystem::path& file) const {
  write_file_atomically(file, to_json());
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
