// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file tuning_file.hpp
//! Tuned schedules on disk, keyed by GPU name and workload (and optionally one scenario of it),
//! written by the sweep tool and read back at run time when a program asks for the tuned default.
//!
//! The file is a schedule store (schedule/schedule_store.hpp): one entry per line, the schedule
//! in the one text form, every field of it:
//! @code
//! microsched-tuning 4
//! <gpu>\t<workload>\t<scenario>\t<median ms>\t<note>\t<schedule_text>
//! @endcode
//! An entry with an empty scenario is the workload's default on that GPU (the sweep stores the
//! best constant setting across its scenarios there); an entry with a scenario ("julia
//! crunch=4096 offset=0") is that scenario's own best.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched::sweep {

struct tuning_entry {
  std::string gpu;       //!< device name as CUDA reports it (cudaDeviceProp::name)
  std::string workload;  //!< registered workload name
  std::string scenario;  //!< "" for the workload's default, else the scenario key
  schedule_arguments schedule;
  double median_ms = 0;  //!< measured time of this schedule (for the record; 0 if unknown)
  std::string note;      //!< free text: where the entry comes from
};

//! All entries of one tuning file. At most one entry per (gpu, workload, scenario).
class tuning_table {
 public:
  //! Reads a tuning file. Throws std::runtime_error naming the file, the line and the problem
  //! when it cannot be read or is not a valid tuning file (another kind of file, an older
  //! version, a JSON file of an older sweep, a schedule that parse_schedule_text refuses:
  //! unknown strategy, chunk -1 or 3.9, a missing field, ...).
  [[nodiscard]] static tuning_table load(const std::filesystem::path& file);
  //! load() when the file exists, else an empty table.
  [[nodiscard]] static tuning_table load_or_empty(const std::filesystem::path& file);

  //! Writes the whole table with save_store (schedule/schedule_store.hpp): a reader never sees a
  //! half-written file. Throws std::runtime_error naming the path, std::invalid_argument for a
  //! field holding a tab or a line break.
  void save(const std::filesystem::path& file) const;

  //! Adds the entry, or replaces the one with the same (gpu, workload, scenario).
  void set(const tuning_entry& entry);

  //! The entry for exactly this key, if any.
  [[nodiscard]] std::optional<tuning_entry> find_exact(const std::string& gpu,
                                                       const std::string& workload,
                                                       const std::string& scenario) const;
  //! The scenario's own entry when there is one, else the workload's default on this GPU.
  [[nodiscard]] std::optional<tuning_entry> find(const std::string& gpu,
                                                 const std::string& workload,
                                                 const std::string& scenario = "") const;

  [[nodiscard]] const std::vector<tuning_entry>& entries() const { return entries_; }

  //! The text save() writes; parse() reads it back (throws std::runtime_error naming `origin`).
  [[nodiscard]] std::string to_text() const;
  [[nodiscard]] static tuning_table parse(const std::string& text,
                                          const std::string& origin = "tuning file");

 private:
  std::vector<tuning_entry> entries_;
};

//! Environment variable naming the tuning file a program reads when it asks for the tuned default.
inline constexpr const char* tuning_file_variable = "MICROSCHED_TUNING_FILE";

//! The tuning file to read: `file` when given, else $MICROSCHED_TUNING_FILE, else none.
[[nodiscard]] std::optional<std::filesystem::path> tuning_file_path(
    const std::filesystem::path& file = {});

//! The tuned schedule for a workload on a GPU (by default the current one), if the tuning file
//! has one. Returns nullopt when there is no tuning file (none given, variable unset, or the
//! file does not exist) or no entry for this GPU and workload. A file that exists but cannot be
//! parsed throws std::runtime_error; asking for the current GPU without one throws
//! microsched::no_device_error.
[[nodiscard]] std::optional<schedule_arguments> find_tuned_schedule(
    const std::string& workload, const std::string& scenario = "",
    const std::filesystem::path& file = {}, const std::string& gpu = {});

//! The tuned default for a workload on the current GPU, or `fallback` when nothing is tuned.
//! This is the call a program makes when its user asks for the tuned default:
//! @code
//! auto args = microsched::sweep::tuned_schedule("julia");  // reads $MICROSCHED_TUNING_FILE
//! @endcode
[[nodiscard]] schedule_arguments tuned_schedule(const std::string& workload,
                                                const schedule_arguments& fallback = {},
                                                const std::string& scenario = "",
                                                const std::filesystem::path& file = {});

}  // namespace microsched::sweep
