// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/calibration_file.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "microsched/error.hpp"
#include "microsched/schedule/automatic_schedule.hpp"

namespace microsched {

namespace {
constexpr const char* header = "microsched-calibration 3";
//! Format 2 lacks the stream period (its choices load with the default period).
constexpr const char* header_2 = "microsched-calibration 2";
}  // namespace

std::string calibration_text(const schedule_arguments& s) {
  std::ostringstream out;
  out << to_string(s.strategy) << ' ' << to_string(s.fetch) << ' ' << s.chunk << ' ' << s.deferral
      << ' ' << s.blocks_per_sm << ' ' << s.switching.switch_every << ' '
      << s.switching.default_then << ' ' << s.switching.vanilla_threshold << ' '
      << (s.switching.fifo ? 1 : 0) << ' ' << s.budget << ' ' << s.period;
  return out.str();
}

schedule_arguments parse_calibration_text(const std::string& text) {
  std::istringstream in(text);
  std::string strategy, fetch, rest;
  long long chunk = 0;
  int fifo = 0;
  schedule_arguments s;
  const bool read =
      static_cast<bool>(in >> strategy >> fetch >> chunk >> s.deferral >> s.blocks_per_sm >>
                        s.switching.switch_every >> s.switching.default_then >>
                        s.switching.vanilla_threshold >> fifo >> s.budget);
  // The period is last and absent from format 2's lines.
  const bool period_ok = !read || (in >> std::ws).eof() || static_cast<bool>(in >> s.period);
  if (!read || !period_ok || (in >> rest)) {
    throw std::invalid_argument("schedule '" + text +
                                "': expected strategy fetch chunk deferral blocks/SM switch_every "
                                "default_then vanilla_threshold fifo budget period");
  }
  if (chunk < 1) throw_invalid("chunk size", chunk, "must be at least 1");
  if (fifo != 0 && fifo != 1) throw_invalid("fifo", fifo, "must be 0 or 1");
  s.strategy = parse_pool_strategy(strategy);
  if (s.strategy == pool_strategy::automatic) {
    throw std::invalid_argument("schedule '" + text + "': a choice cannot be automatic");
  }
  s.fetch = parse_fetch_control(fetch);
  s.chunk = static_cast<std::uint64_t>(chunk);
  s.switching.fifo = fifo == 1;
  validate(s);
  return s;
}

void save_calibrations(const std::filesystem::path& file) {
  const auto temporary = std::filesystem::path(file.string() + ".tmp");
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write calibration file " + temporary.string());
    out << header << '\n';
    for (const auto& [key, size_class, chosen] : detail::decided_calibrations()) {
      out << key << '\t' << size_class << '\t' << calibration_text(chosen) << '\n';
    }
    out.flush();
    if (!out) throw std::runtime_error("cannot write calibration file " + temporary.string());
  }
  std::error_code ec;
  std::filesystem::rename(temporary, file, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw std::runtime_error("cannot replace calibration file " + file.string());
  }
}

calibration_load load_calibrations(const std::filesystem::path& file,
                                   const std::string& device_key) {
  calibration_load result;
  std::ifstream in(file);
  if (!in) {
    result.problem = "cannot read calibration file " + file.string() + "; calibrating as usual";
    return result;
  }
  std::vector<std::tuple<std::string, int, schedule_arguments>> entries;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (number == 1) {
      if (line != header && line != header_2) {
        result.problem = file.string() + ":1: not a microsched calibration file (expected '" +
                         header + "'); nothing loaded, calibrating as usual";
        return result;
      }
      continue;
    }
    if (line.empty()) continue;
    const auto tab1 = line.find('\t');
    const auto tab2 = tab1 == std::string::npos ? tab1 : line.find('\t', tab1 + 1);
    try {
      if (tab2 == std::string::npos)
        throw std::invalid_argument("expected three tab-separated fields");
      const std::string key = line.substr(0, tab1);
      const int size_class = std::stoi(line.substr(tab1 + 1, tab2 - tab1 - 1));
      if (size_class < 0 || size_class > 64)
        throw_invalid("size class", size_class, "must be in 0..64");
      const schedule_arguments chosen = parse_calibration_text(line.substr(tab2 + 1));
      const bool here = device_key.empty() || (key.size() >= device_key.size() &&
                                               key.compare(key.size() - device_key.size(),
                                                           device_key.size(), device_key) == 0);
      if (!here) {
        ++result.other_gpus;
        continue;
      }
      entries.emplace_back(key, size_class, chosen);
    } catch (const std::exception& e) {
      result.problem = file.string() + ":" + std::to_string(number) + ": " + e.what() +
                       "; nothing loaded, calibrating as usual";
      return result;
    }
  }
  if (number == 0 || in.bad()) {
    result.problem = "calibration file " + file.string() +
                     " is empty or cannot be read; nothing loaded, calibrating as usual";
    return result;
  }
  for (const auto& [key, size_class, chosen] : entries)
    detail::seed_calibration(key, size_class, chosen);
  result.loaded = static_cast<int>(entries.size());
  return result;
}

}  // namespace microsched
