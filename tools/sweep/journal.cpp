// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "sweep/journal.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace microsched::sweep {

namespace {
[[noreturn]] void fail(const std::filesystem::path& path, const std::string& why) {
  throw std::runtime_error("results journal '" + path.string() + "': " + why);
}

//! A journal of another sweep: its points would not compare with this one's.
class mismatch_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void require_same_sweep(const sweep_header& header, const sweep_header& expected) {
  const auto mismatch = [&](const std::string& what, const std::string& was,
                            const std::string& now) {
    throw mismatch_error("was recorded with " + what + " " + was + ", this sweep has " + now +
                         "; its points would not compare");
  };
  if (header.workload != expected.workload) {
    mismatch("workload", header.workload, expected.workload);
  }
  if (header.gpu != expected.gpu) mismatch("GPU", "'" + header.gpu + "'", "'" + expected.gpu + "'");
  if (header.timing.warmup != expected.timing.warmup ||
      header.timing.repetitions != expected.timing.repetitions) {
    mismatch(
        "warm-up/repetitions",
        std::to_string(header.timing.warmup) + "/" + std::to_string(header.timing.repetitions),
        std::to_string(expected.timing.warmup) + "/" + std::to_string(expected.timing.repetitions));
  }
}
}  // namespace

journal::journal(std::filesystem::path path, std::FILE* file, sweep_header header)
    : path_(std::move(path)), file_(file), header_(std::move(header)) {}

journal::journal(journal&& other) noexcept
    : path_(std::move(other.path_)),
      file_(other.file_),
      header_(std::move(other.header_)),
      baselines_(std::move(other.baselines_)),
      points_(std::move(other.points_)),
      repaired_(other.repaired_) {
  other.file_ = nullptr;
}

journal::~journal() {
  if (file_ != nullptr) std::fclose(file_);
}

journal journal::create(const std::filesystem::path& file, const sweep_header& header,
                        bool overwrite) {
  if (!overwrite && std::filesystem::exists(file)) {
    fail(file,
         "exists from an earlier sweep; pass --resume to continue it, or --overwrite to "
         "start again from nothing");
  }
  std::FILE* f = std::fopen(file.c_str(), "w");
  if (f == nullptr) fail(file, std::string("cannot create: ") + std::strerror(errno));
  journal j(file, f, header);
  j.write_line(to_json(header).dump());
  return j;
}

journal journal::resume(const std::filesystem::path& file, const sweep_header& expected) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(file, "cannot be read (nothing to resume; run without --resume to start)");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  in.close();
  if (text.empty()) fail(file, "is empty (nothing to resume; run without --resume to start)");

  // Everything is checked before the file is touched: only a journal of this sweep whose last
  // line alone is torn (a kill mid-write) has that line cut, and then that point runs again.
  const auto last_newline = text.rfind('\n');
  const std::size_t complete = last_newline == std::string::npos ? 0 : last_newline + 1;
  if (complete == 0) {
    fail(file,
         "has no complete line, so no sweep header; it was left as it is (not a journal of "
         "this tool? use another --out folder, or --overwrite)");
  }
  std::istringstream lines(text.substr(0, complete));
  std::string line;
  int number = 0;
  sweep_header header;
  std::map<std::string, baseline_record> baselines;
  std::map<std::pair<std::string, std::string>, point_record> points;
  const auto refuse = [&](const std::string& why) {
    fail(file, why + "; it was left as it is. Use another --out folder, or --overwrite");
  };
  while (std::getline(lines, line)) {
    ++number;
    if (line.empty()) continue;
    try {
      const auto j = nlohmann::json::parse(line);
      if (!j.is_object()) throw std::invalid_argument("not a JSON object");
      const std::string type = j.value("type", "");
      if (number == 1) {
        if (type != "header") throw std::invalid_argument("the first line is not a sweep header");
        header = header_from_json(j);
        require_same_sweep(header, expected);
      } else if (type == "baseline") {
        auto b = baseline_from_json(j);
        baselines[b.scenario] = std::move(b);
      } else if (type == "point") {
        auto p = point_from_json(j);
        if (p.status != point_status::check_failed) {
          points[{p.scenario, setting_key(p.schedule, p.tunables)}] = std::move(p);
        }
      } else {
        throw std::invalid_argument("unknown record type '" + type + "'");
      }
    } catch (const mismatch_error& e) {
      refuse(e.what());
    } catch (const std::exception& e) {
      refuse("line " + std::to_string(number) + ": " + e.what());
    }
  }
  int repaired = 0;
  if (complete < text.size()) {
    std::error_code ec;
    std::filesystem::resize_file(file, complete, ec);
    if (ec) fail(file, "cannot cut its torn last line: " + ec.message());
    repaired = 1;
  }
  std::FILE* f = std::fopen(file.c_str(), "a");
  if (f == nullptr) fail(file, std::string("cannot append: ") + std::strerror(errno));
  journal j(file, f, header);
  j.baselines_ = std::move(baselines);
  j.points_ = std::move(points);
  j.repaired_ = repaired;
  return j;
}

void journal::write_line(const std::string& line) {
  if (std::fputs(line.c_str(), file_) < 0 || std::fputc('\n', file_) == EOF ||
      std::fflush(file_) != 0) {
    fail(path_, std::string("write failed: ") + std::strerror(errno));
  }
  // A point costs many kernel runs; one fsync per point is cheap insurance against a crash.
  ::fsync(::fileno(file_));
}

void journal::append(const baseline_record& record) {
  write_line(to_json(record).dump());
  baselines_[record.scenario] = record;
}

void journal::append(const point_record& record) {
  write_line(to_json(record).dump());
  if (record.status != point_status::check_failed) {
    points_[{record.scenario, setting_key(record.schedule, record.tunables)}] = record;
  }
}

const baseline_record* journal::find_baseline(const std::string& scenario) const {
  const auto it = baselines_.find(scenario);
  return it == baselines_.end() ? nullptr : &it->second;
}

const point_record* journal::find_point(const std::string& scenario,
                                        const schedule_arguments& schedule,
                                        const options_map& tunables) const {
  const auto it = points_.find({scenario, setting_key(schedule, tunables)});
  return it == points_.end() ? nullptr : &it->second;
}

}  // namespace microsched::sweep
