// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "calibration_replay.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace microsched::replay {

namespace {

//! The fields of one CSV line; a field in double quotes may hold commas.
std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

double number(const std::string& text, std::size_t line, const std::string& column) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value) || value <= 0) {
    throw std::invalid_argument("line " + std::to_string(line) + ", column '" + column + "': '" +
                                text + "' is not a positive time in ms");
  }
  return value;
}

}  // namespace

call_times read_application_csv(std::istream& in,
                                const std::vector<schedule_arguments>& candidates) {
  std::string line;
  if (!std::getline(in, line)) throw std::invalid_argument("empty file: no header line");
  const std::vector<std::string> header = split_fields(line);
  if (header.size() < 3 || header[0] != "call" || header[1] != "vanilla") {
    throw std::invalid_argument(
        "line 1: expected the header 'call,vanilla,default,...' of "
        "bench_application --csv");
  }
  std::vector<std::size_t> column(candidates.size());
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const std::string name = to_string(candidates[c]);
    std::size_t found = 0;
    for (std::size_t k = 2; k < header.size(); ++k) {
      if (header[k] == name) found = k;
    }
    if (found == 0) throw std::invalid_argument("no column for candidate '" + name + "'");
    column[c] = found;
  }
  call_times t;
  t.candidate.resize(candidates.size());
  for (std::size_t number_of_line = 2; std::getline(in, line); ++number_of_line) {
    if (line.empty()) continue;
    const std::vector<std::string> f = split_fields(line);
    if (f.size() != header.size()) {
      throw std::invalid_argument("line " + std::to_string(number_of_line) + ": " +
                                  std::to_string(f.size()) + " fields, the header has " +
                                  std::to_string(header.size()));
    }
    t.vanilla.push_back(number(f[1], number_of_line, "vanilla"));
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      t.candidate[c].push_back(number(f[column[c]], number_of_line, header[column[c]]));
    }
  }
  if (t.calls() == 0) throw std::invalid_argument("no calls after the header");
  return t;
}

replay_summary replay(const call_times& times, const std::vector<schedule_arguments>& candidates,
                      const calibration_settings& settings, std::size_t first_call) {
  if (first_call >= times.calls()) {
    throw std::invalid_argument("first call " + std::to_string(first_call) + ": the file has " +
                                std::to_string(times.calls()) + " calls");
  }
  calibration choice(candidates, settings);
  replay_summary s;
  s.first_call = first_call;
  s.calls = times.calls() - first_call;
  const std::vector<double>* previous_best = &times.vanilla;
  for (std::size_t i = first_call; i < times.calls(); ++i) {
    const int c = choice.next();
    const bool timed = choice.next_run_timed();
    const double ms = times.candidate[static_cast<std::size_t>(c)][i];
    if (timed) choice.record(c, ms);
    s.previous_best_ms += (*previous_best)[i];
    previous_best = &times.vanilla;
    for (const auto& candidate : times.candidate) {
      if (candidate[i] < (*previous_best)[i]) previous_best = &candidate;
    }
    const double fastest = (*previous_best)[i];
    s.default_ms += ms;
    s.vanilla_ms += times.vanilla[i];
    s.direct_ms += times.candidate[0][i];
    s.oracle_ms += fastest;
    s.below_098 += times.vanilla[i] / ms < 0.98;
    s.below_08 += times.vanilla[i] / ms < 0.8;
  }
  s.report = choice.report();
  return s;
}

std::string describe(const replay_summary& s) {
  char text[320];
  std::snprintf(text, sizeof text,
                "default %.3f ms: %.3fx vanilla, %.3fx direct, %.1f%% of the oracle's speed (the "
                "previous call's best: %.1f%%); %d of %zu calls below 0.98x vanilla, %d below 0.8x",
                s.default_ms, s.vanilla_ms / s.default_ms, s.direct_ms / s.default_ms,
                100 * s.oracle_ms / s.default_ms, 100 * s.oracle_ms / s.previous_best_ms,
                s.below_098, s.calls, s.below_08);
  return text;
}

}  // namespace microsched::replay
