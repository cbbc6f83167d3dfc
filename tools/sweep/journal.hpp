// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file journal.hpp
//! The results journal: an append-only JSON-lines file (results.jsonl) that gets one line per
//! finished point, flushed to disk before the next point starts. A sweep that is stopped or
//! killed loses at most the point in flight; --resume reads the journal back and runs only what
//! is missing. A line torn by a kill mid-write is cut off when the journal is reopened, once the
//! rest of it is checked: a journal that is not this sweep's is never modified.

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sweep/records.hpp"

namespace microsched::sweep {

class journal {
 public:
  //! Starts a new journal. Throws std::runtime_error when the file exists (unless `overwrite`)
  //! or cannot be written, naming the path.
  [[nodiscard]] static journal create(const std::filesystem::path& file, const sweep_header& header,
                                      bool overwrite);
  //! Reopens a journal to continue it. Throws std::runtime_error, leaving the file untouched, when
  //! it does not exist, is not a sweep journal of this format version, has a bad complete line
  //! (naming the line), or was recorded for another workload, GPU or timing options than
  //! `expected` (whose `started` is ignored). Only then is a torn last line cut off.
  [[nodiscard]] static journal resume(const std::filesystem::path& file,
                                      const sweep_header& expected);

  journal(journal&& other) noexcept;
  journal& operator=(journal&&) = delete;
  journal(const journal&) = delete;
  ~journal();

  void append(const baseline_record& record);
  void append(const point_record& record);

  [[nodiscard]] const sweep_header& header() const { return header_; }
  [[nodiscard]] const baseline_record* find_baseline(const std::string& scenario) const;
  //! The finished (ok or skipped) record of this point, if any. A check_failed record does not
  //! count: the point runs again on resume.
  [[nodiscard]] const point_record* find_point(const std::string& scenario,
                                               const schedule_arguments& schedule,
                                               const options_map& tunables = {}) const;
  //! Lines cut off when the journal was reopened (0 or 1).
  [[nodiscard]] int repaired_lines() const { return repaired_; }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  journal(std::filesystem::path path, std::FILE* file, sweep_header header);
  void write_line(const std::string& line);

  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  sweep_header header_;
  std::map<std::string, baseline_record> baselines_;
  std::map<std::pair<std::string, std::string>, point_record> points_;  // (scenario, setting)
  int repaired_ = 0;
};

}  // namespace microsched::sweep
