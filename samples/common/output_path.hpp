// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file output_path.hpp
//! The check a program makes on an output file before any device work, as a bad argument (exit
//! 2) that names the option: microsched::require_writable_file, the rules of the library's one file
//! write (io/atomic_file.hpp). It only asks the file system: it creates, opens and deletes
//! nothing, so a refused command leaves the user's files as they were.

#include <stdexcept>
#include <string>
#include <string_view>

#include "microsched/io/atomic_file.hpp"

namespace microsched::programs {

//! Throws std::invalid_argument naming `option` and `path` unless write_file_atomically can be
//! expected to write `path`: not a folder, a writable folder, an existing file that is writable.
inline void validate_output_file(const std::string& option, const std::string& path) {
  try {
    require_writable_file(path);
  } catch (const std::runtime_error& e) {
    // "cannot write 'PATH': WHY" -> "OPTION = 'PATH': WHY"
    std::string_view why = e.what();
    const std::string prefix = "cannot write '" + path + "': ";
    if (why.substr(0, prefix.size()) == prefix) why.remove_prefix(prefix.size());
    throw std::invalid_argument(option + " = '" + path + "': " + std::string(why));
  }
}

}  // namespace microsched::programs
