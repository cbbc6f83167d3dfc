// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "sweep/records.hpp"

#include <ctime>
#include <stdexcept>

#include "microsched/schedule/schedule_text.hpp"

namespace microsched::sweep {

using json = nlohmann::json;

std::string to_string(point_status status) {
  switch (status) {
    case point_status::ok:
      return "ok";
    case point_status::skipped:
      return "skipped";
    case point_status::check_failed:
      return "check_failed";
  }
  return "?";
}

point_status parse_point_status(const std::string& text) {
  if (text == "ok") return point_status::ok;
  if (text == "skipped") return point_status::skipped;
  if (text == "check_failed") return point_status::check_failed;
  throw std::invalid_argument("status '" + text + "': expected ok, skipped or check_failed");
}

bool same_timing(const timing_stats& a, const timing_stats& b) {
  return a.median_ms == b.median_ms && a.min_ms == b.min_ms && a.max_ms == b.max_ms &&
         a.repetitions == b.repetitions;
}

bool operator==(const sweep_header& a, const sweep_header& b) {
  return a.workload == b.workload && a.gpu == b.gpu && a.timing.warmup == b.timing.warmup &&
         a.timing.repetitions == b.timing.repetitions && a.started == b.started;
}

bool operator==(const baseline_record& a, const baseline_record& b) {
  return a.scenario == b.scenario && a.options == b.options && a.describe == b.describe &&
         a.tasks == b.tasks && a.total_steps == b.total_steps &&
         same_timing(a.vanilla, b.vanilla) && same_timing(a.persistent, b.persistent) &&
         same_timing(a.floor, b.floor) && a.references == b.references;
}

bool operator==(const point_record& a, const point_record& b) {
  return a.scenario == b.scenario && a.schedule == b.schedule && a.tunables == b.tunables &&
         a.status == b.status && a.reason == b.reason && same_timing(a.time, b.time) &&
         a.check_passed == b.check_passed && a.check_tasks == b.check_tasks &&
         a.missing == b.missing && a.duplicated == b.duplicated && a.mismatched == b.mismatched;
}

json to_json(const sweep_header& h) {
  return {{"type", "header"},
          {"format", "microsched-sweep"},
          {"version", journal_version},
          {"workload", h.workload},
          {"gpu", h.gpu},
          {"warmup", h.timing.warmup},
          {"repetitions", h.timing.repetitions},
          {"started", h.started}};
}

json to_json(const timing_stats& s) {
  if (!timed(s)) return nullptr;  // a reference the workload does not have: n/a, not a number
  return {{"median_ms", s.median_ms},
          {"min_ms", s.min_ms},
          {"max_ms", s.max_ms},
          {"repetitions", s.repetitions}};
}

json to_json(const baseline_record& r) {
  return {{"type", "baseline"},
          {"scenario", r.scenario},
          {"options", r.options},
          {"describe", r.describe},
          {"tasks", r.tasks},
          {"total_steps", r.total_steps},
          {"vanilla", to_json(r.vanilla)},
          {"persistent", to_json(r.persistent)},
          {"floor", to_json(r.floor)},
          {"references", r.references}};
}

json to_json(const point_record& r) {
  return {{"type", "point"},
          {"scenario", r.scenario},
          {"schedule", schedule_text(r.schedule)},
          {"tunables", r.tunables},
          {"status", to_string(r.status)},
          {"reason", r.reason},
          {"time", to_json(r.time)},
          {"check",
           {{"passed", r.check_passed},
            {"tasks", r.check_tasks},
            {"missing", r.missing},
            {"duplicated", r.duplicated},
            {"mismatched", r.mismatched}}}};
}

namespace {
template <class T>
T field(const json& j, const char* name) {
  try {
    return j.at(name).get<T>();
  } catch (const json::exception&) {
    throw std::invalid_argument(std::string("field \"") + name +
                                "\" is missing or of the wrong type");
  }
}
}  // namespace

sweep_header header_from_json(const json& j) {
  if (field<std::string>(j, "format") != "microsched-sweep") {
    throw std::invalid_argument("not a microsched sweep journal");
  }
  const int version = field<int>(j, "version");
  if (version == 1) {
    throw std::invalid_argument(
        "version 1 was written by an older sweep, whose schedules lack budget, period and "
        "switching; start again with --overwrite or another --out");
  }
  if (version == 2) {
    throw std::invalid_argument(
        "version 2 was written by an older sweep, which stored a schedule as a JSON object; "
        "start again with --overwrite or another --out");
  }
  if (version != journal_version) {
    throw std::invalid_argument("version " + std::to_string(version) + " is not supported (" +
                                std::to_string(journal_version) + " is)");
  }
  sweep_header h;
  h.workload = field<std::string>(j, "workload");
  h.gpu = field<std::string>(j, "gpu");
  h.timing.warmup = field<int>(j, "warmup");
  h.timing.repetitions = field<int>(j, "repetitions");
  h.started = field<std::string>(j, "started");
  return h;
}

timing_stats timing_from_json(const json& j) {
  if (j.is_null()) return {};
  return {field<double>(j, "median_ms"), field<double>(j, "min_ms"), field<double>(j, "max_ms"),
          field<int>(j, "repetitions")};
}

baseline_record baseline_from_json(const json& j) {
  baseline_record r;
  r.scenario = field<std::string>(j, "scenario");
  r.options = field<options_map>(j, "options");
  r.describe = field<std::string>(j, "describe");
  r.tasks = field<std::uint64_t>(j, "tasks");
  r.total_steps = field<std::uint64_t>(j, "total_steps");
  r.vanilla = timing_from_json(j.at("vanilla"));
  r.persistent = timing_from_json(j.at("persistent"));
  r.floor = timing_from_json(j.at("floor"));
  r.references = j.value("references", "");
  return r;
}

point_record point_from_json(const json& j) {
  point_record r;
  r.scenario = field<std::string>(j, "scenario");
  if (!j.contains("schedule")) throw std::invalid_argument("field \"schedule\" is missing");
  r.schedule = parse_schedule_text(field<std::string>(j, "schedule"));
  if (j.contains("tunables")) r.tunables = field<options_map>(j, "tunables");
  r.status = parse_point_status(field<std::string>(j, "status"));
  r.reason = field<std::string>(j, "reason");
  if (!j.contains("time")) throw std::invalid_argument("field \"time\" is missing");
  r.time = timing_from_json(j.at("time"));
  if (!j.contains("check")) throw std::invalid_argument("field \"check\" is missing");
  const json& c = j.at("check");
  r.check_passed = field<bool>(c, "passed");
  r.check_tasks = field<std::uint64_t>(c, "tasks");
  r.missing = field<std::uint64_t>(c, "missing");
  r.duplicated = field<std::uint64_t>(c, "duplicated");
  r.mismatched = field<std::uint64_t>(c, "mismatched");
  return r;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace microsched::sweep
