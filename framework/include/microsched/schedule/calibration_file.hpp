// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file calibration_file.hpp
//! The automatic schedules' choices on disk, so that a later process starts decided.
//!
//! The cache is on by default: the first automatic scheduler (or automatic_switching) of a
//! process loads calibration_cache_file(), and the process saves its choices there when it exits. A
//! missing file is the normal first run; a corrupt, unreadable or foreign one is ignored with one
//! line on stderr, never an error. `MICROSCHED_CACHE=off` turns the cache off;
//! `MICROSCHED_CACHE_DIR` moves it (default `$XDG_CACHE_HOME/microsched`, else
//! `$HOME/.cache/microsched`). A file is a schedule store (schedule_store.hpp), as the sweep's
//! tuning files are: one choice per line, the schedule in the one text form (schedule_text.hpp).
//! The form is `-` for the termination scheduler's choices; switching::automatic_switching's
//! name their march window and task order (`w64 o2`):
//!
//! \code
//! microsched-calibration 6
//! <program|policy|device|driver>\t<size class>\t<form>\t<schedule_text>
//! \endcode
//!
//! save_calibrations() and load_calibrations() write and read such a file explicitly.

#include <filesystem>
#include <optional>
#include <string>

#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched {

struct calibration_load {
  int loaded = 0;       //!< choices taken from the file
  int other_gpus = 0;   //!< entries for devices not in this process, ignored
  std::string problem;  //!< empty, or why nothing was loaded (the file and line named)
};

//! Writes the choices of this process (made here or loaded) to `file`, atomically
//! (io/atomic_file.hpp). Throws std::runtime_error naming the path when it cannot.
void save_calibrations(const std::filesystem::path& file);

//! Writes the choices this process made (not those it loaded) into `file`, keeping the file's
//! other entries: another process's, newer than what this one loaded. A missing, older or corrupt
//! file is replaced; throws std::runtime_error naming the file, writing nothing, for one that
//! cannot be read or that a newer microsched wrote. Processes merge in turn (a lock on
//! `file`.lock, waited for at most 10 s). The process does so at exit.
void merge_calibrations(const std::filesystem::path& file);

//! Seeds the process with the choices in `file` whose key ends in `device_key` (empty: every
//! entry). Never throws for the file's content: a missing, unreadable or corrupt file loads
//! nothing and says why in `problem`, and the schedulers then calibrate as usual, starting with
//! the direct mapping. Choices already made in this process are kept.
[[nodiscard]] calibration_load load_calibrations(const std::filesystem::path& file,
                                                 const std::string& device_key = "");

//! The cache file the automatic schedule loads and saves by default, or none when
//! `MICROSCHED_CACHE=off` (or no folder can be named: no MICROSCHED_CACHE_DIR, XDG_CACHE_HOME
//! or HOME).
[[nodiscard]] std::optional<std::filesystem::path> calibration_cache_file();

}  // namespace microsched
