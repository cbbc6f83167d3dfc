// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "sweep/report.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "microsched/schedule/schedule_text.hpp"

namespace microsched::sweep {

using json = nlohmann::json;

point_ratios ratios(const point_record& p, const baseline_record& b) {
  point_ratios r;
  if (p.status != point_status::ok || p.time.median_ms <= 0) return r;
  const double t = p.time.median_ms;
  r.speedup_vs_vanilla = timed(b.vanilla) ? b.vanilla.median_ms / t : 0;
  r.speedup_vs_persistent = timed(b.persistent) ? b.persistent.median_ms / t : 0;
  r.over_floor = timed(b.floor) && b.floor.median_ms > 0 ? t / b.floor.median_ms : 0;
  r.noise = (p.time.max_ms - p.time.min_ms) / t;
  return r;
}

std::optional<std::size_t> best_point(const scenario_results& s) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const auto& p = s.points[i];
    if (p.status != point_status::ok) continue;
    if (!best || p.time.median_ms < s.points[*best].time.median_ms) best = i;
  }
  return best;
}

std::optional<constant_setting> best_constant(const sweep_results& results) {
  if (results.scenarios.empty()) return std::nullopt;
  // setting key -> median per scenario (NaN where it did not run there)
  std::map<std::string, std::pair<point_setting, std::vector<double>>> table;
  std::vector<std::string> order;  // first-seen order, so ties resolve the same way every time
  std::vector<double> best_ms;
  const std::size_t n = results.scenarios.size();
  for (std::size_t s = 0; s < n; ++s) {
    const auto& sc = results.scenarios[s];
    const auto best = best_point(sc);
    best_ms.push_back(best ? sc.points[*best].time.median_ms : NAN);
    for (const auto& p : sc.points) {
      if (p.status != point_status::ok) continue;
      const auto key = setting_key(p.schedule, p.tunables);
      auto [it, inserted] = table.try_emplace(key, point_setting{p.schedule, p.tunables},
                                              std::vector<double>(n, NAN));
      if (inserted) order.push_back(key);
      it->second.second[s] = p.time.median_ms;
    }
  }
  std::optional<constant_setting> chosen;
  for (const auto& key : order) {
    const auto& [setting, times] = table.at(key);
    constant_setting c;
    c.schedule = setting.schedule;
    c.tunables = setting.tunables;
    double log_sum = 0;
    bool everywhere = true;
    for (std::size_t s = 0; s < n; ++s) {
      if (std::isnan(times[s]) || std::isnan(best_ms[s])) {
        everywhere = false;
        break;
      }
      const double loss = times[s] / best_ms[s] - 1;
      c.scenario_best_ms.push_back(best_ms[s]);
      c.constant_ms.push_back(times[s]);
      c.loss.push_back(loss);
      c.worst_loss = std::max(c.worst_loss, loss);
      log_sum += std::log1p(loss);
    }
    if (!everywhere) continue;
    c.mean_loss = std::expm1(log_sum / static_cast<double>(n));
    constexpr double tie = 1e-12;
    if (!chosen || c.mean_loss < chosen->mean_loss - tie ||
        (c.mean_loss <= chosen->mean_loss + tie && c.worst_loss < chosen->worst_loss)) {
      chosen = std::move(c);
    }
  }
  return chosen;
}

// ---------------------------------------------------------------------------------------------
// CSV

namespace {

std::string number(double v) {
  char buf[64];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, ec == std::errc{} ? ptr : buf);
}

//! A reference's median, or an empty field where the workload has no such reference.
std::string reference(const timing_stats& t) {
  return timed(t) ? number(t.median_ms) : "";
}

//! A ratio for JSON: null where its reference is absent.
json ratio_json(double value, const timing_stats& reference) {
  return timed(reference) ? json(value) : json(nullptr);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

const std::vector<std::string>& csv_fixed_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c = {"workload", "gpu", "scenario"};
    for (const auto& f : schedule_fields()) c.emplace_back(f.name);  // every schedule field
    for (const char* name :
         {"status", "reason", "median_ms", "min_ms", "max_ms", "repetitions", "noise", "vanilla_ms",
          "persistent_ms", "floor_ms", "speedup_vs_vanilla", "speedup_vs_persistent", "over_floor",
          "check_passed", "check_tasks", "missing", "duplicated", "mismatched"}) {
      c.emplace_back(name);
    }
    return c;
  }();
  return columns;
}

std::string to_csv(const sweep_results& results) {
  std::ostringstream out;
  bool first = true;
  for (const auto& c : csv_fixed_columns()) {
    out << (first ? "" : ",") << c;
    first = false;
  }
  for (const auto& name : results.option_names) out << "," << csv_field(name);
  for (const auto& name : results.tunable_names) out << "," << csv_field(name);
  out << "\n";
  for (const auto& sc : results.scenarios) {
    const auto& b = sc.baseline;
    for (const auto& p : sc.points) {
      const auto r = ratios(p, b);
      const bool ok = p.status == point_status::ok;
      std::vector<std::string> fields = {results.header.workload, results.header.gpu, b.scenario};
      for (auto& [name, value] : schedule_values(p.schedule)) fields.push_back(std::move(value));
      for (auto& f : std::vector<std::string>{
               to_string(p.status), p.reason, ok ? number(p.time.median_ms) : "",
               ok ? number(p.time.min_ms) : "", ok ? number(p.time.max_ms) : "",
               ok ? std::to_string(p.time.repetitions) : "", ok ? number(r.noise) : "",
               reference(b.vanilla), reference(b.persistent), reference(b.floor),
               ok && timed(b.vanilla) ? number(r.speedup_vs_vanilla) : "",
               ok && timed(b.persistent) ? number(r.speedup_vs_persistent) : "",
               ok && timed(b.floor) ? number(r.over_floor) : "", p.check_passed ? "true" : "false",
               std::to_string(p.check_tasks), std::to_string(p.missing),
               std::to_string(p.duplicated), std::to_string(p.mismatched)}) {
        fields.push_back(std::move(f));
      }
      first = true;
      for (const auto& f : fields) {
        out << (first ? "" : ",") << csv_field(f);
        first = false;
      }
      for (const auto& name : results.option_names) {
        const auto it = b.options.find(name);
        out << "," << csv_field(it == b.options.end() ? "" : it->second);
      }
      for (const auto& name : results.tunable_names) {
        const auto it = p.tunables.find(name);
        out << "," << csv_field(it == p.tunables.end() ? "" : it->second);
      }
      out << "\n";
    }
  }
  return out.str();
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, in_field = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
      continue;
    }
    if (c == '"' && field.empty()) {
      quoted = in_field = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      in_field = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      row.push_back(std::move(field));
      field.clear();
      rows.push_back(std::move(row));
      row.clear();
      in_field = false;
    } else {
      field += c;
      in_field = true;
    }
  }
  if (quoted) throw std::invalid_argument("CSV: a quoted field is not closed");
  if (in_field || !field.empty()) {
    row.push_back(std::move(field));
    rows.push_back(std::move(row));
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// JSON

std::string to_json_text(const sweep_results& results) {
  json scenarios = json::array();
  for (const auto& sc : results.scenarios) {
    json j = to_json(sc.baseline);
    j.erase("type");
    json points = json::array();
    for (const auto& p : sc.points) {
      json pj = to_json(p);
      pj.erase("type");
      pj.erase("scenario");
      if (p.status == point_status::ok) {
        const auto r = ratios(p, sc.baseline);
        pj["speedup_vs_vanilla"] = ratio_json(r.speedup_vs_vanilla, sc.baseline.vanilla);
        pj["speedup_vs_persistent"] = ratio_json(r.speedup_vs_persistent, sc.baseline.persistent);
        pj["over_floor"] = ratio_json(r.over_floor, sc.baseline.floor);
        pj["noise"] = r.noise;
      }
      points.push_back(std::move(pj));
    }
    j["points"] = std::move(points);
    if (const auto best = best_point(sc)) {
      const auto& p = sc.points[*best];
      const auto r = ratios(p, sc.baseline);
      j["best"] = {{"schedule", schedule_text(p.schedule)},
                   {"tunables", p.tunables},
                   {"median_ms", p.time.median_ms},
                   {"speedup_vs_vanilla", ratio_json(r.speedup_vs_vanilla, sc.baseline.vanilla)},
                   {"over_floor", ratio_json(r.over_floor, sc.baseline.floor)}};
    } else {
      j["best"] = nullptr;
    }
    scenarios.push_back(std::move(j));
  }
  json doc = to_json(results.header);
  doc.erase("type");
  doc["format"] = "microsched-sweep-results";
  doc["options"] = results.option_names;
  doc["tunables"] = results.tunable_names;
  doc["takes_schedule"] = results.takes_schedule;
  doc["scenarios"] = std::move(scenarios);
  if (const auto c = best_constant(results)) {
    json losses = json::array();
    for (std::size_t s = 0; s < results.scenarios.size(); ++s) {
      losses.push_back({{"scenario", results.scenarios[s].baseline.scenario},
                        {"best_ms", c->scenario_best_ms[s]},
                        {"constant_ms", c->constant_ms[s]},
                        {"loss", c->loss[s]}});
    }
    doc["best_constant"] = {{"schedule", schedule_text(c->schedule)},
                            {"tunables", c->tunables},
                            {"mean_loss", c->mean_loss},
                            {"worst_loss", c->worst_loss},
                            {"per_scenario", losses}};
  } else {
    doc["best_constant"] = nullptr;
  }
  return doc.dump(2) + "\n";
}

sweep_results results_from_json_text(const std::string& text) {
  sweep_results results;
  try {
    json doc = json::parse(text);
    if (doc.value("format", "") != "microsched-sweep-results") {
      throw std::invalid_argument("not a microsched sweep results file");
    }
    doc["format"] = "microsched-sweep";
    results.header = header_from_json(doc);
    results.option_names = doc.at("options").get<std::vector<std::string>>();
    results.tunable_names = doc.value("tunables", std::vector<std::string>{});
    results.takes_schedule = doc.value("takes_schedule", true);
    for (const auto& sj : doc.at("scenarios")) {
      scenario_results sc;
      sc.baseline = baseline_from_json(sj);
      for (json pj : sj.at("points")) {
        pj["scenario"] = sc.baseline.scenario;
        sc.points.push_back(point_from_json(pj));
      }
      results.scenarios.push_back(std::move(sc));
    }
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("sweep results JSON: ") + e.what());
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// Summary

std::string format_ms(double ms) {
  char buf[64];
  if (ms >= 1.0) {
    std::snprintf(buf, sizeof buf, "%.3g ms", ms);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g us", ms * 1000);
  }
  return buf;
}

namespace {
std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
std::string percent(double fraction) {
  return fixed(fraction * 100, 1) + "%";
}
std::string time_or_na(const timing_stats& t) {
  return timed(t) ? format_ms(t.median_ms) : "n/a";
}
}  // namespace

std::string setting_label(const sweep_results& results, const point_record& point) {
  return setting_key(point.schedule, point.tunables, results.takes_schedule);
}

std::string summary_text(const sweep_results& results) {
  std::ostringstream out;
  std::size_t points = 0, skipped = 0;
  for (const auto& sc : results.scenarios) {
    for (const auto& p : sc.points) {
      ++points;
      skipped += p.status == point_status::skipped;
    }
  }
  out << "GPU " << results.header.gpu << ", workload " << results.header.workload << ": "
      << results.scenarios.size() << " scenario(s), " << points << " points (" << points - skipped
      << " timed, " << skipped << " skipped), median of " << results.header.timing.repetitions
      << " runs after " << results.header.timing.warmup << " warm-up\n";
  for (const auto& sc : results.scenarios) {
    const auto& b = sc.baseline;
    out << "\n" << b.scenario << "  (" << b.describe << ")\n";
    out << "  vanilla " << time_or_na(b.vanilla) << ", persistent threads "
        << time_or_na(b.persistent) << ", floor " << time_or_na(b.floor);
    if (timed(b.vanilla) && timed(b.floor)) {
      out << " (vanilla is " << fixed(b.vanilla.median_ms / b.floor.median_ms, 2) << "x the floor)";
    }
    out << "\n";
    if (!b.references.empty()) out << "  references: " << b.references << "\n";
    if (const auto best = best_point(sc)) {
      const auto& p = sc.points[*best];
      const auto r = ratios(p, b);
      out << "  best: " << setting_label(results, p) << "\n"
          << "        " << format_ms(p.time.median_ms) << " (" << format_ms(p.time.min_ms) << " to "
          << format_ms(p.time.max_ms) << ")";
      if (timed(b.vanilla)) out << ", " << fixed(r.speedup_vs_vanilla, 2) << "x vanilla";
      if (timed(b.persistent)) {
        out << ", " << fixed(r.speedup_vs_persistent, 2) << "x persistent threads";
      }
      if (timed(b.floor)) {
        out << ", " << fixed(r.over_floor, 2) << "x the floor (" << percent(r.over_floor - 1)
            << " above it)";
      }
      out << "\n";
    } else {
      out << "  no point ran\n";
    }
    std::map<std::string, int> reasons;
    for (const auto& p : sc.points) {
      if (p.status == point_status::skipped) ++reasons[p.reason];
    }
    for (const auto& [reason, count] : reasons) {
      out << "  skipped " << count << " point(s): " << reason << "\n";
    }
  }
  if (results.scenarios.size() > 1) {
    out << "\n";
    if (const auto c = best_constant(results)) {
      point_record constant_point;
      constant_point.schedule = c->schedule;
      constant_point.tunables = c->tunables;
      out << "best constant setting across " << results.scenarios.size()
          << " scenarios: " << setting_label(results, constant_point) << "\n";
      for (std::size_t s = 0; s < results.scenarios.size(); ++s) {
        out << "  " << results.scenarios[s].baseline.scenario << ": "
            << format_ms(c->constant_ms[s]) << " against its best "
            << format_ms(c->scenario_best_ms[s]) << ", loses " << percent(c->loss[s]) << "\n";
      }
      out << "  mean loss " << percent(c->mean_loss) << ", worst " << percent(c->worst_loss)
          << "\n";
    } else {
      out << "no schedule ran in every scenario: no best constant setting\n";
    }
  }
  return out.str();
}

}  // namespace microsched::sweep
