// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! A fresh folder under the system's temporary folder, removed with everything in it at the end,
//! and the text of a file the tests wrote there.

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace microsched::sweep::testing {

struct temp_folder {
  std::filesystem::path path;
  explicit temp_folder(const char* prefix = "sweep-test") {
    std::string pattern = (std::filesystem::temp_directory_path() / prefix).string() + "-XXXXXX";
    path = ::mkdtemp(pattern.data());
  }
  ~temp_folder() { std::filesystem::remove_all(path); }
  temp_folder(const temp_folder&) = delete;
  temp_folder& operator=(const temp_folder&) = delete;
};

//! The whole file, byte for byte ("" where it cannot be read).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace microsched::sweep::testing
