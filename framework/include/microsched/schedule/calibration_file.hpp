// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file calibration_file.hpp
//! The automatic schedule's choices on disk, so a program can skip calibrating in its next
//! process: save_calibrations() writes every choice made so far, load_calibrations() seeds the
//! process with the choices of a file for the GPUs in this machine. Nothing is read or written
//! unless the program asks. A file is text, one choice per line:
//!
//! \code
//! microsched-calibration 3
//! <program|policy|device>\t<size class>\t<strategy> <fetch> <chunk> <deferral> <blocks/SM>
//! <switch_every> <default_then> <vanilla_threshold> <fifo> <budget> <period> \endcode
//!
//! Files of format 2 (no period) load too, their stream choices with the default period.

#include <filesystem>
#include <string>

#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched {

struct calibration_load {
  int loaded = 0;       //!< choices taken from the file
  int other_gpus = 0;   //!< entries for devices not in this process, ignored
  std::string problem;  //!< empty, or why nothing was loaded (the file and line named)
};

//! Writes the decided choices of this process to `file` (through a temporary file and a rename,
//! so a reader never sees half a file). Throws std::runtime_error naming the path when it cannot.
void save_calibrations(const std::filesystem::path& file);

//! Seeds the process with the choices in `file` whose device is `device_key` ("ordinal:name" as
//! the scheduler forms it; empty: every device). Never throws for the file's content: a missing,
//! unreadable or corrupt file loads nothing and says why in `problem`, and the schedulers then
//! calibrate as usual, starting with the direct mapping. Choices already made in this process
//! are kept.
[[nodiscard]] calibration_load load_calibrations(const std::filesystem::path& file,
                                                 const std::string& device_key = "");

//! One line's schedule, as the file writes it, and back. parse throws std::invalid_argument.
[[nodiscard]] std::string calibration_text(const schedule_arguments& s);
[[nodiscard]] schedule_arguments parse_calibration_text(const std::string& text);

}  // namespace microsched
