// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file schedule_store.hpp
//! The one store of schedules on disk, for the calibration cache (calibration_file.hpp)
//! and the sweep's tuning files (sweep/tuning_file.hpp). A store is a text file: a first line that
//! names its kind and version, then one record per line, tab-separated: the kind's key fields,
//! then the schedule in the one text form (schedule_text.hpp), every field of it:
//!
//! \code
//! microsched-tuning 4
//! <gpu>\t<workload>\t<scenario>\t<median ms>\t<note>\t<schedule_text>
//! \endcode
//!
//! It is written whole with write_file_atomically (io/atomic_file.hpp), so a reader never sees
//! half a file, and read strictly: the first problem is named with the file and the line.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched {

//! What a store holds: its name and version (the first line, "NAME VERSION") and how many key
//! fields come before the schedule on each line.
struct store_kind {
  std::string_view name;
  int version = 1;
  std::size_t key_fields = 1;
};

struct store_record {
  std::vector<std::string> keys;  //!< the kind's key fields, in order
  schedule_arguments schedule;
  int line = 0;  //!< where parse_store() read it (1-based), for the reader's own errors
};

//! The store's text. Throws std::invalid_argument for a record whose number of keys is not the
//! kind's, or a key that holds a tab or a line break.
[[nodiscard]] std::string store_text(const store_kind& kind,
                                     const std::vector<store_record>& records);

//! Reads store_text() back; empty lines are skipped. Throws std::invalid_argument
//! "ORIGIN:LINE: why" for a first line that is not this kind and version (naming an older
//! version of this kind as such), a line with the wrong number of fields, or a schedule that
//! parse_schedule_text() refuses.
[[nodiscard]] std::vector<store_record> parse_store(std::string_view text, const store_kind& kind,
                                                    const std::string& origin);

//! The version the first line of `text` gives for this kind, or -1 where it names no version of
//! it (another kind, no number).
[[nodiscard]] int store_version(std::string_view text, const store_kind& kind);

//! Writes store_text() to `file` atomically. Throws std::invalid_argument as store_text() does,
//! std::runtime_error naming the path when it cannot write.
void save_store(const std::filesystem::path& file, const store_kind& kind,
                const std::vector<store_record>& records);

//! The bytes of `file`. Throws std::runtime_error naming the file when it cannot be read.
[[nodiscard]] std::string read_store_text(const std::filesystem::path& file);

//! Reads `file` with parse_store(). Throws std::runtime_error naming the file: it cannot be read,
//! it is empty, or parse_store() refuses it (its reason).
[[nodiscard]] std::vector<store_record> load_store(const std::filesystem::path& file,
                                                   const store_kind& kind);

}  // namespace microsched
