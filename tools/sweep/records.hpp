// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file records.hpp
//! What a sweep measures, one record per scenario baseline and one per point, and their JSON
//! form (the lines of the results journal and the entries of sweep.json).

#include <nlohmann/json.hpp>
#include <string>

#include "microsched/measure/timing_stats.hpp"
#include "microsched/schedule/schedule_arguments.hpp"
#include "sweep/plan.hpp"

namespace microsched::sweep {

//! The journal's and sweep.json's format version. 3: a point's schedule is the one text form
//! (schedule/schedule_text.hpp); 2 held it as a JSON object, 1 held five of its fields.
inline constexpr int journal_version = 3;

//! What every point of a sweep shares; written first in the journal.
struct sweep_header {
  std::string workload;
  std::string gpu;        //!< device name; a journal is resumed only on the same GPU
  timing_options timing;  //!< a journal is resumed only with the same warm-up and repetitions
  std::string started;    //!< UTC time the sweep began, ISO 8601
};

//! Field-by-field equality (timing_stats and timing_options have none of their own).
[[nodiscard]] bool same_timing(const timing_stats& a, const timing_stats& b);

//! True when a reference was timed; a workload without it (workload_traits) leaves it empty
//! (no repetitions), which the outputs write as n/a (CSV: empty, JSON: null).
[[nodiscard]] inline bool timed(const timing_stats& t) {
  return t.repetitions > 0;
}

//! The three references of one scenario, timed once in the same run as its points.
struct baseline_record {
  std::string scenario;  //!< scenario_key()
  options_map options;
  std::string describe;  //!< the workload's own description
  std::uint64_t tasks = 0;
  std::uint64_t total_steps = 0;
  timing_stats vanilla;
  timing_stats persistent;  //!< warp-granular persistent threads
  timing_stats floor;       //!< uniform-work floor: the same steps without divergence
  //! What the references are for this workload where its area names them otherwise, and why an
  //! absent one is absent ("persistent threads: termination-only driver; floor: n/a (...)");
  //! empty for the termination workloads.
  std::string references;
};

enum class point_status {
  ok,           //!< checked exactly-once, then timed
  skipped,      //!< the configuration cannot run here; `reason` says why
  check_failed  //!< the exactly-once check failed: the sweep stopped at this point
};

[[nodiscard]] std::string to_string(point_status status);
[[nodiscard]] point_status parse_point_status(const std::string& text);

struct point_record {
  std::string scenario;
  schedule_arguments schedule;
  options_map tunables;  //!< the workload's swept tunables (empty: none swept)
  point_status status = point_status::ok;
  std::string reason;  //!< why it was skipped, or what the check found
  timing_stats time;   //!< zero unless ok
  bool check_passed = false;
  std::uint64_t check_tasks = 0;
  std::uint64_t missing = 0;
  std::uint64_t duplicated = 0;
  std::uint64_t mismatched = 0;
};

[[nodiscard]] bool operator==(const sweep_header& a, const sweep_header& b);
[[nodiscard]] bool operator==(const baseline_record& a, const baseline_record& b);
[[nodiscard]] bool operator==(const point_record& a, const point_record& b);

[[nodiscard]] nlohmann::json to_json(const sweep_header& header);
[[nodiscard]] nlohmann::json to_json(const timing_stats& stats);
[[nodiscard]] nlohmann::json to_json(const baseline_record& record);
[[nodiscard]] nlohmann::json to_json(const point_record& record);

//! Readers throw std::invalid_argument naming the missing or bad field. A schedule is written and
//! read with schedule_text / parse_schedule_text, the form of every file that holds one.
[[nodiscard]] sweep_header header_from_json(const nlohmann::json& j);
[[nodiscard]] timing_stats timing_from_json(const nlohmann::json& j);
[[nodiscard]] baseline_record baseline_from_json(const nlohmann::json& j);
[[nodiscard]] point_record point_from_json(const nlohmann::json& j);

//! The current UTC time as "2024-05-01T12:34:56Z".
[[nodiscard]] std::string utc_now();

}  // namespace microsched::sweep
