// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file schedule_json.hpp
//! The JSON form of a schedule, for the tuning files and the sweep's records: one member per field
//! of schedule_fields() (schedule/schedule_text.hpp), so it holds exactly what the text form
//! holds. Words are strings, numbers JSON numbers, flags booleans:
//! @code{.json}
//! {"strategy": "budgeted", "fetch": "any", "chunk": 32, "deferral": 0, "blocks_per_sm": 0,
//!  "budget": 64, "period": 0, "switch_every": 1, "default_then": 0,
//!  "fifo": false}
//! @endcode
//! Header-only: it needs nlohmann_json, which the core library does not.

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "microsched/schedule/schedule_text.hpp"

namespace microsched {

//! Every field of `args` as a JSON object.
[[nodiscard]] inline nlohmann::json schedule_json(const schedule_arguments& args) {
  nlohmann::json j = nlohmann::json::object();
  const auto fields = schedule_fields();
  const auto values = schedule_values(args);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const std::string key(fields[i].name);
    const std::string& value = values[i].second;
    switch (fields[i].kind) {
      case schedule_field_kind::word:
        j[key] = value;
        break;
      case schedule_field_kind::number:
        j[key] = std::stoull(value);
        break;
      case schedule_field_kind::flag:
        j[key] = value == "true";
        break;
    }
  }
  return j;
}

//! Reads schedule_json() back, as strictly as parse_schedule_text(): every key once, no other;
//! a number of the wrong JSON type or spelling (-1, 3.9, 1e30, "64") is refused, naming the key
//! and the value. Throws std::invalid_argument; validate()s the result.
[[nodiscard]] inline schedule_arguments parse_schedule_json(const nlohmann::json& j) {
  if (!j.is_object()) {
    throw std::invalid_argument("schedule: expected a JSON object, not " + j.dump());
  }
  std::vector<std::pair<std::string, std::string>> values;
  const auto fields = schedule_fields();
  for (const auto& [key, v] : j.items()) {
    std::size_t i = 0;
    while (i < fields.size() && fields[i].name != key) ++i;
    const auto expected = [&](const char* what) {
      throw std::invalid_argument("schedule " + key + "=" + v.dump() + ": expected " + what);
    };
    if (i == fields.size()) {  // schedule_from_values() names the known keys
      values.emplace_back(key, v.is_string() ? v.get<std::string>() : v.dump());
      continue;
    }
    switch (fields[i].kind) {
      case schedule_field_kind::word:
        if (!v.is_string()) expected("a string");
        values.emplace_back(key, v.get<std::string>());
        break;
      case schedule_field_kind::number:
        // The number as written ("-1", "3.9", "1e+30"): the text reader refuses it by name.
        if (!v.is_number()) expected("a number");
        values.emplace_back(key, v.dump());
        break;
      case schedule_field_kind::flag:
        if (!v.is_boolean()) expected("true or false");
        values.emplace_back(key, v.get<bool>() ? "true" : "false");
        break;
    }
  }
  return schedule_from_values(values);
}

}  // namespace microsched
