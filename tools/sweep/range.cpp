// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "sweep/range.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

namespace microsched::sweep {

namespace {

[[noreturn]] void bad(std::string_view item, const std::string& why) {
  throw std::invalid_argument("'" + std::string(item) + "': " + why);
}

bool is_number_start(std::string_view s) {
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) != 0 ||
                        ((s[0] == '-' || s[0] == '.') && s.size() > 1));
}

bool parse_int(std::string_view s, std::int64_t& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && ptr == s.data() + s.size() && !s.empty();
}

bool parse_double(std::string_view s, double& out) {
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && ptr == s.data() + s.size() && std::isfinite(out);
}

std::string format_double(double v) {
  char buf[64];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, ec == std::errc{} ? ptr : buf);
}

std::vector<std::string> split(std::string_view s, std::string_view sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = s.find(sep, start);
    parts.emplace_back(
        s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + sep.size();
  }
  return parts;
}

//! lo, hi and an optional step ("x2", "*2", "+3", "3"), already split. `item` is for messages.
std::vector<std::string> numeric_range(std::string_view item, const std::string& lo_text,
                                       const std::string& hi_text, const std::string& step_text,
                                       const std::string& prefix) {
  bool multiply = false;
  std::string step_number = step_text.empty() ? "1" : step_text;
  if (!step_text.empty() && (step_text[0] == 'x' || step_text[0] == '*')) {
    multiply = true;
    step_number = step_text.substr(1);
  } else if (!step_text.empty() && step_text[0] == '+') {
    step_number = step_text.substr(1);
  }
  std::vector<std::string> out;
  std::int64_t lo = 0, hi = 0, step = 0;
  if (parse_int(lo_text, lo) && parse_int(hi_text, hi) && parse_int(step_number, step)) {
    if (lo > hi) bad(item, "the range starts at " + lo_text + ", above its end " + hi_text);
    if (multiply) {
      if (step < 2) bad(item, "multiplier x" + step_number + " must be at least 2");
      if (lo < 1) bad(item, "a multiplying range must start at 1 or more, not " + lo_text);
      for (std::int64_t v = lo; v <= hi; v = v > hi / step ? hi + 1 : v * step) {
        out.push_back(prefix + std::to_string(v));
      }
    } else {
      if (step < 1) bad(item, "step " + step_number + " must be at least 1");
      if (static_cast<std::uint64_t>(hi - lo) / static_cast<std::uint64_t>(step) >=
          max_axis_values) {
        bad(item, "more than " + std::to_string(max_axis_values) + " values");
      }
      for (std::int64_t v = lo; v <= hi; v += step) {
        out.push_back(prefix + std::to_string(v));
        if (hi - v < step) break;
      }
    }
    return out;
  }
  double dlo = 0, dhi = 0, dstep = 0;
  if (!parse_double(lo_text, dlo)) bad(item, "'" + lo_text + "' is not a number");
  if (!parse_double(hi_text, dhi)) bad(item, "'" + hi_text + "' is not a number");
  if (!parse_double(step_number, dstep)) bad(item, "step '" + step_text + "' is not a number");
  if (dlo > dhi) bad(item, "the range starts at " + lo_text + ", above its end " + hi_text);
  if (multiply) {
    if (dstep <= 1) bad(item, "multiplier x" + step_number + " must be above 1");
    if (dlo <= 0) bad(item, "a multiplying range must start above 0, not " + lo_text);
  } else if (dstep <= 0) {
    bad(item, "step " + step_number + " must be above 0");
  }
  const double slack = 1e-9 * std::max(std::abs(dhi), 1.0);
  for (std::size_t i = 0;; ++i) {
    const double v = multiply ? dlo * std::pow(dstep, static_cast<double>(i))
                              : dlo + dstep * static_cast<double>(i);
    if (v > dhi + slack) break;
    if (out.size() >= max_axis_values) {
      bad(item, "more than " + std::to_string(max_axis_values) + " values");
    }
    // Round away binary noise: 0.1 + 3 * 0.2 prints as 0.7, not 0.7000000000000001.
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.12g", v);
    double rounded = 0;
    parse_double(buf, rounded);
    out.push_back(prefix + format_double(rounded));
  }
  return out;
}

std::vector<std::string> expand_item(std::string_view item) {
  if (item.empty()) throw std::invalid_argument("empty value in the list (two commas in a row?)");
  if (const auto dots = item.find(".."); dots != std::string_view::npos) {
    // [prefix:]lo..hi[:step]
    std::string prefix;
    std::string_view rest = item;
    const auto colon = item.find(':');
    if (colon != std::string_view::npos && colon < dots && !is_number_start(item)) {
      prefix = std::string(item.substr(0, colon + 1));
      rest = item.substr(colon + 1);
    }
    const auto range_dots = rest.find("..");
    const std::string lo(rest.substr(0, range_dots));
    std::string hi(rest.substr(range_dots + 2));
    std::string step;
    if (const auto step_colon = hi.find(':'); step_colon != std::string::npos) {
      step = hi.substr(step_colon + 1);
      hi.resize(step_colon);
    }
    if (lo.empty() || hi.empty()) bad(item, "a range needs both ends: lo..hi");
    return numeric_range(item, lo, hi, step, prefix);
  }
  if (is_number_start(item) && item.find(':') != std::string_view::npos) {
    const auto parts = split(item, ":");
    if (parts.size() > 3) bad(item, "a range is lo:hi or lo:hi:step");
    if (parts[0].empty() || parts[1].empty()) bad(item, "a range needs both ends: lo:hi");
    return numeric_range(item, parts[0], parts[1], parts.size() == 3 ? parts[2] : "", "");
  }
  return {std::string(item)};
}

std::uint64_t positive_integer(std::string_view name, const std::string& value, std::int64_t lowest,
                               const char* why) {
  std::int64_t v = 0;
  if (!parse_int(value, v)) {
    throw std::invalid_argument(std::string(name) + " = " + value + ": not a whole number");
  }
  if (v < lowest) throw std::invalid_argument(std::string(name) + " = " + value + ": " + why);
  return static_cast<std::uint64_t>(v);
}

std::string normalise_schedule_value(std::string_view name, const std::string& value) {
  if (name == "strategy") return to_string(parse_pool_strategy(value));
  if (name == "fetch") return to_string(parse_fetch_control(value));
  if (name == "chunk") {
    return std::to_string(positive_integer(name, value, 1, "must be at least 1 task"));
  }
  if (name == "deferral") {
    const auto v = positive_integer(name, value, 1, "must be at least 1 step");
    if (v > 1'000'000) throw std::invalid_argument("deferral = " + value + ": too large");
    return std::to_string(v);
  }
  if (name == "budget") {
    const auto v = positive_integer(name, value, 1, "must be at least 1 step");
    if (v > 1'000'000) throw std::invalid_argument("budget = " + value + ": too large");
    return std::to_string(v);
  }
  if (name == "period") {
    const auto v = positive_integer(name, value, 1, "must be 4 or 8 steps");
    if (v != static_cast<std::uint64_t>(default_warp_range_period) &&
        v != static_cast<std::uint64_t>(long_warp_range_period)) {
      throw std::invalid_argument("period = " + value +
                                  ": must be 4 or 8 steps (the compiled warp_range periods)");
    }
    return std::to_string(v);
  }
  // blocks-per-sm
  if (value == "auto" || value == "0") return "auto";
  const auto v = positive_integer(name, value, 1, "must be at least 1, or auto");
  if (v > 1024) throw std::invalid_argument("blocks-per-sm = " + value + ": too large");
  return std::to_string(v);
}

}  // namespace

std::vector<std::string> expand_values(std::string_view spec) {
  if (spec.empty()) throw std::invalid_argument("no values given");
  std::vector<std::string> values;
  for (const auto& item : split(spec, ",")) {
    for (auto& v : expand_item(item)) {
      if (std::find(values.begin(), values.end(), v) == values.end())
        values.push_back(std::move(v));
      if (values.size() > max_axis_values) {
        throw std::invalid_argument("more than " + std::to_string(max_axis_values) + " values");
      }
    }
  }
  return values;
}

const std::vector<std::string>& schedule_axis_names() {
  static const std::vector<std::string> names = {"strategy",      "fetch",  "chunk", "deferral",
                                                 "blocks-per-sm", "budget", "period"};
  return names;
}

std::string canonical_axis_name(std::string_view name) {
  if (name == "blocks_per_sm" || name == "blocks" || name == "blocks-per-sm" ||
      name == "blocks/SM") {
    return "blocks-per-sm";
  }
  if (name == "chunk-size" || name == "chunk_size") return "chunk";
  return std::string(name);
}

bool is_schedule_axis(std::string_view canonical_name) {
  const auto& names = schedule_axis_names();
  return std::find(names.begin(), names.end(), canonical_name) != names.end();
}

axis parse_axis(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw std::invalid_argument("'" + std::string(text) +
                                "': expected name=values, e.g. chunk=1:4096:x2");
  }
  axis result;
  result.name = canonical_axis_name(text.substr(0, eq));
  for (char c : result.name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '_') {
      throw std::invalid_argument("'" + std::string(text) + "': '" + result.name +
                                  "' is not a parameter name");
    }
  }
  try {
    result.values = expand_values(text.substr(eq + 1));
    if (is_schedule_axis(result.name)) {
      std::vector<std::string> normalised;
      for (const auto& v : result.values) {
        auto n = normalise_schedule_value(result.name, v);
        if (std::find(normalised.begin(), normalised.end(), n) == normalised.end()) {
          normalised.push_back(std::move(n));
        }
      }
      result.values = std::move(normalised);
    } else {
      for (const auto& v : result.values) {
        if (v.find_first_of(" \t\n\"") != std::string::npos) {
          throw std::invalid_argument("value '" + v + "' contains a space or a quote");
        }
      }
    }
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("in '" + std::string(text) + "': " + e.what());
  }
  return result;
}

void apply_schedule_value(schedule_arguments& args, std::string_view name,
                          const std::string& value) {
  if (name == "strategy") {
    args.strategy = parse_pool_strategy(value);
  } else if (name == "fetch") {
    args.fetch = parse_fetch_control(value);
  } else if (name == "chunk") {
    args.chunk = positive_integer(name, value, 1, "must be at least 1 task");
  } else if (name == "deferral") {
    args.deferral = static_cast<int>(positive_integer(name, value, 1, "must be at least 1 step"));
  } else if (name == "blocks-per-sm") {
    args.blocks_per_sm =
        value == "auto" ? 0 : static_cast<int>(positive_integer(name, value, 0, ""));
  } else if (name == "budget") {
    args.budget = static_cast<int>(positive_integer(name, value, 1, "must be at least 1 step"));
  } else if (name == "period") {
    args.period = static_cast<int>(positive_integer(name, value, 1, "must be 4 or 8 steps"));
  } else {
    throw std::invalid_argument("'" + std::string(name) + "' is not a schedule parameter");
  }
}

std::string schedule_value(const schedule_arguments& args, std::string_view name) {
  if (name == "strategy") return to_string(args.strategy);
  if (name == "fetch") return to_string(args.fetch);
  if (name == "chunk") return std::to_string(args.chunk);
  if (name == "deferral") return std::to_string(args.deferral);
  if (name == "blocks-per-sm") {
    return args.blocks_per_sm == 0 ? "auto" : std::to_string(args.blocks_per_sm);
  }
  if (name == "budget") return std::to_string(args.budget);
  if (name == "period") return std::to_string(args.period);
  throw std::invalid_argument("'" + std::string(name) + "' is not a schedule parameter");
}

}  // namespace microsched::sweep
