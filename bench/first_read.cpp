// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// first_read: how long a process's first read of a file takes, through a file stream or the
// library's reader of its stores, POSIX open/read (docs/decisions.md, "The cache file read
// without file streams"). Run it in a fresh process each time: only the first read pays the setup.
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "checked_cli.hpp"
#include "microsched/schedule/schedule_store.hpp"
#include "program_main.hpp"

namespace {
//! The file's bytes through std::ifstream and std::ostringstream.
std::string stream_read(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream all;
  if (in) all << in.rdbuf();
  if (!in) throw std::invalid_argument("'" + file + "': cannot be read");
  return all.str();
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Times this process's first read of FILE, in microseconds, through a file stream "
      "(std::ifstream) or with --posix through the library's reader of its stores (open/read). Run "
      "it in a fresh process each time: "
      "the first stream a process opens pays for its setup, later reads do not. No GPU needed.\n"
      "Example: for i in 1 2 3; do first_read CMakeLists.txt; first_read CMakeLists.txt --posix; "
      "done"};
  std::string file;
  bool posix = false;
  app.add_option("file", file, "the file to read");
  app.add_flag("--posix", posix,
               "read with the library's reader (read_store_text: open/read), not a file stream");
  MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);

  return microsched::programs::run_main("first_read", [&] {
    if (file.empty()) throw std::invalid_argument("a file is required");
    struct stat info {};
    if (::stat(file.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {  // checked before timing
      throw std::invalid_argument("'" + file + "': not a file that can be read");
    }
    const auto start = std::chrono::steady_clock::now();
    const std::string text = posix ? microsched::read_store_text(file) : stream_read(file);
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    std::printf("%s: %zu bytes, %.0f us\n", posix ? "posix" : "stream", text.size(), took.count());
    return 0;
  });
}
