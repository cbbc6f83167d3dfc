// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/schedule_text.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace microsched {

namespace {

[[noreturn]] void refuse(std::string_view key, std::string_view value, const std::string& why) {
  throw std::invalid_argument("schedule " + std::string(key) + "=" + std::string(value) + ": " +
                              why);
}

//! A whole number of 0 or more, at most `most`; digits only (no sign, point or exponent).
std::uint64_t whole_number(std::string_view key, std::string_view value, std::uint64_t most) {
  if (value.empty()) refuse(key, value, "no value");
  if (value.front() == '-') refuse(key, value, "must not be negative");
  std::uint64_t n = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ptr == value.data()) refuse(key, value, "not a whole number");
  if (ec == std::errc::result_out_of_range || (ec == std::errc{} && n > most)) {
    refuse(key, value, "out of range (at most " + std::to_string(most) + ")");
  }
  if (ptr != value.data() + value.size()) {
    const char next = *ptr;
    refuse(key, value,
           next == '.' || next == 'e' || next == 'E'
               ? "not a whole number"
               : "junk after the number: '" +
                     std::string(value.substr(static_cast<std::size_t>(ptr - value.data()))) + "'");
  }
  return n;
}

int int_field(std::string_view key, std::string_view value) {
  return static_cast<int>(
      whole_number(key, value, static_cast<std::uint64_t>(std::numeric_limits<int>::max())));
}

bool flag_field(std::string_view key, std::string_view value) {
  if (value == "true") return true;
  if (value == "false") return false;
  refuse(key, value, "expected true or false");
}

//! A field's name and kind with how to read and write it; the one list every form is built on.
struct field_entry {
  schedule_field field;
  std::string (*get)(const schedule_arguments&);
  void (*set)(schedule_arguments&, std::string_view key, std::string_view value);
};

std::string number(std::uint64_t n) {
  return std::to_string(n);
}

constexpr std::array<field_entry, 10> field_table{{
    {{"strategy", schedule_field_kind::word},
     [](const schedule_arguments& a) { return to_string(a.strategy); },
     [](schedule_arguments& a, std::string_view, std::string_view v) {
       a.strategy = parse_pool_strategy(std::string(v));
     }},
    {{"fetch", schedule_field_kind::word},
     [](const schedule_arguments& a) { return to_string(a.fetch); },
     [](schedule_arguments& a, std::string_view, std::string_view v) {
       a.fetch = parse_fetch_control(std::string(v));
     }},
    {{"chunk", schedule_field_kind::number},
     [](const schedule_arguments& a) { return number(a.chunk); },
     [](schedule_arguments& a, std::string_view k, std::string_view v) {
       a.chunk = whole_number(k, v, std::numeric_limits<std::uint64_t>::max());
     }},
    {{"deferral", schedule_field_kind::number},
     [](const schedule_arguments& a) { return std::to_string(a.deferral); },
     [](schedule_arguments& a, std::string_view k, std::string_view v) {
       a.deferral = int_field(k, v);
     }},
    {{"blocks_per_sm", schedule_field_kind::number},
     [](const schedule_arguments& a) { return std::to_string(a.blocks_per_sm); },
     [](schedule_arguments& a, std::string_view k, std::string_view v) {
       a.blocks_per_sm = int_field(k, v);
     }},
    {{"budget", schedule_field_kind::number},
     [](const schedule_arguments& a) { return std::to_string(a.budget); },
     [](schedule_arguments& a, std::string_view k, std::string_view v) {
       a.budget = int_field(k, v);
     }},
    {{"period", schedule_field_kind::number},
     [](const schedule_arguments& a) { return std::to_string(a.period); },
     [](schedule_arguments& a, std::string_view k, std::string_view v) {
       a.period = int_field(k, v);
     }},
    {{"switch_every", schedule_field_kind::number},
     [](const schedule_arguments& a) { return std::to_string(a.switching.switch_every); },
     [](schedule_arguments& a, std::string_view k, std::string_view v) {
       a.switching.switch_every = int_field(k, v);
     }},
    {{"default_then", schedule_field_kind::number},
     [](const schedule_arguments& a) { return number(a.switching.default_then); },
     [](schedule_arguments& a, std::string_view k, std::string_view v) {
       a.switching.default_then = static_cast<std::uint32_t>(
           whole_number(k, v, std::numeric_limits<std::uint32_t>::max()));
     }},
    {{"fifo", schedule_field_kind::flag},
     [](const schedule_arguments& a) { return std::string(a.switching.fifo ? "true" : "false"); },
     [](schedule_arguments& a, std::string_view k, std::string_view v) {
       a.switching.fifo = flag_field(k, v);
     }},
}};

// An entry left out of the braces would be all null: every slot holds a field.
static_assert(std::ranges::all_of(field_table, [](const field_entry& e) {
  return e.get != nullptr && e.set != nullptr && !e.field.name.empty();
}));

constexpr std::array<schedule_field, field_table.size()> fields_of_table() {
  std::array<schedule_field, field_table.size()> out{};
  for (std::size_t i = 0; i < field_table.size(); ++i) out[i] = field_table[i].field;
  return out;
}

constexpr auto field_list = fields_of_table();

std::string field_names() {
  std::string names;
  for (const auto& f : field_list) names += (names.empty() ? "" : ", ") + std::string(f.name);
  return names;
}

}  // namespace

std::span<const schedule_field> schedule_fields() {
  return field_list;
}

std::vector<std::pair<std::string, std::string>> schedule_values(const schedule_arguments& args) {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(field_table.size());
  for (const auto& f : field_table) out.emplace_back(std::string(f.field.name), f.get(args));
  return out;
}

schedule_arguments schedule_from_values(
    const std::vector<std::pair<std::string, std::string>>& values) {
  schedule_arguments args;
  std::array<bool, field_table.size()> seen{};
  for (const auto& [key, value] : values) {
    std::size_t i = 0;
    while (i < field_table.size() && field_table[i].field.name != key) ++i;
    if (i == field_table.size()) {
      refuse(key, value, "unknown key; the keys are " + field_names());
    }
    if (seen[i]) refuse(key, value, "the key is given twice");
    seen[i] = true;
    try {
      field_table[i].set(args, key, value);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      if (what.rfind("schedule ", 0) == 0) throw;
      refuse(key, value, what);  // parse_pool_strategy / parse_fetch_control's reason
    }
  }
  for (std::size_t i = 0; i < field_table.size(); ++i) {
    if (!seen[i]) {
      throw std::invalid_argument("schedule: missing key " +
                                  std::string(field_table[i].field.name) +
                                  " (every key must be given: " + field_names() + ")");
    }
  }
  try {
    validate(args);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("schedule '" + schedule_text(args) + "': " + e.what());
  }
  return args;
}

std::string schedule_text(const schedule_arguments& args) {
  std::string text;
  for (const auto& f : field_table) {
    if (!text.empty()) text += ' ';
    text += f.field.name;
    text += '=';
    text += f.get(args);
  }
  return text;
}

schedule_arguments parse_schedule_text(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> values;
  std::size_t at = 0;
  while (at < text.size()) {
    if (text[at] == ' ' || text[at] == '\t') {
      ++at;
      continue;
    }
    std::size_t end = at;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    const std::string_view word = text.substr(at, end - at);
    const auto eq = word.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      throw std::invalid_argument("schedule text: '" + std::string(word) +
                                  "' is not key=value (in '" + std::string(text) + "')");
    }
    values.emplace_back(std::string(word.substr(0, eq)), std::string(word.substr(eq + 1)));
    at = end;
  }
  return schedule_from_values(values);
}

}  // namespace microsched
