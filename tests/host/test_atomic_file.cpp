// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "microsched/io/atomic_file.hpp"

using namespace microsched;
namespace fs = std::filesystem;

namespace {
struct scratch_folder {
  fs::path path;
  scratch_folder() {
    std::string pattern = (fs::temp_directory_path() / "atomic-file-test-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~scratch_folder() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path, ec);
  }
  scratch_folder(const scratch_folder&) = delete;
  scratch_folder& operator=(const scratch_folder&) = delete;

  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void put(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

unsigned mode_of(const fs::path& file) {
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string error_of(const fs::path& file, const std::string& bytes) {
  try {
    write_file_atomically(file, bytes);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("a file is written whole, replaced whole, and nothing else is left in its folder") {
  scratch_folder dir;
  const auto file = dir.path / "out.txt";
  write_file_atomically(file, "first");
  CHECK(read(file) == "first");
  write_file_atomically(file, std::string(100000, 'x'));
  CHECK(read(file) == std::string(100000, 'x'));
  write_file_atomically(file, "");
  CHECK(read(file).empty());
  CHECK(dir.names() == std::vector<std::string>{"out.txt"});
}

TEST_CASE("a new file takes 0666 less the umask; an existing file keeps its mode") {
  scratch_folder dir;
  const mode_t old_mask = ::umask(027);
  write_file_atomically(dir.path / "new.txt", "x");
  ::umask(old_mask);
  CHECK(mode_of(dir.path / "new.txt") == 0640);
  for (const unsigned mode : {0600u, 0664u, 0755u, 0200u}) {
    const auto file = dir.path / ("kept-" + std::to_string(mode));
    put(file, "old");
    REQUIRE(::chmod(file.c_str(), mode) == 0);
    write_file_atomically(file, "new");
    CHECK(mode_of(file) == mode);
    REQUIRE(::chmod(file.c_str(), 0600) == 0);
    CHECK(read(file) == "new");
  }
}

TEST_CASE("a read-only file is refused with its path and left untouched") {
  scratch_folder dir;
  const auto file = dir.path / "keep.txt";
  put(file, "precious");
  REQUIRE(::chmod(file.c_str(), 0444) == 0);
  const std::string error = error_of(file, "overwritten");
  CHECK(contains(error, file.string()));
  CHECK(contains(error, "read-only (mode 0444)"));
  CHECK(read(file) == "precious");
  CHECK(mode_of(file) == 0444);
  CHECK(dir.names() == std::vector<std::string>{"keep.txt"});
  CHECK_THROWS_WITH_AS(require_writable_file(file), doctest::Contains("read-only"),
                       std::runtime_error);
}

TEST_CASE("a symbolic link is followed: its target is replaced and the link stays a link") {
  scratch_folder dir;
  fs::create_directory(dir.path / "real");
  const auto target = dir.path / "real" / "data.txt";
  put(target, "old");
  REQUIRE(::chmod(target.c_str(), 0640) == 0);
  const auto link = dir.path / "link.txt";
  fs::create_symlink(fs::path("real") / "data.txt", link);  // relative, as users make them
  write_file_atomically(link, "new");
  CHECK(fs::is_symlink(link));
  CHECK(fs::read_symlink(link) == fs::path("real") / "data.txt");
  CHECK(read(target) == "new");
  CHECK(mode_of(target) == 0640);
  CHECK(dir.names() == std::vector<std::string>{"link.txt", "real"});

  SUBCASE("a link to a read-only file is refused") {
    REQUIRE(::chmod(target.c_str(), 0444) == 0);
    CHECK(contains(error_of(link, "x"), "read-only"));
    CHECK(read(target) == "new");
  }
  SUBCASE("a dangling link makes its target") {
    const auto dangling = dir.path / "dangling.txt";
    fs::create_symlink(dir.path / "real" / "made.txt", dangling);
    write_file_atomically(dangling, "made");
    CHECK(fs::is_symlink(dangling));
    CHECK(read(dir.path / "real" / "made.txt") == "made");
  }
}

TEST_CASE("folders, hard-linked files and missing folders are refused, naming the path") {
  scratch_folder dir;
  CHECK(contains(error_of(dir.path, "x"), "is a folder"));
  const auto missing = dir.path / "no" / "such" / "x.txt";
  CHECK(contains(error_of(missing, "x"), missing.string()));
  const auto file = dir.path / "plain.txt";
  put(file, "plain");
  CHECK(contains(error_of(file / "x.txt", "x"), (file / "x.txt").string()));
  fs::create_hard_link(file, dir.path / "twin.txt");
  CHECK(contains(error_of(file, "x"), "2 hard links"));
  CHECK(read(file) == "plain");
  CHECK_THROWS_WITH_AS(write_file_atomically("", "x"), doctest::Contains("empty path"),
                       std::runtime_error);
  if (::geteuid() != 0) {  // root writes into any folder
    fs::create_directory(dir.path / "locked");
    fs::permissions(dir.path / "locked", fs::perms::owner_read | fs::perms::owner_exec);
    const auto inside = dir.path / "locked" / "x.txt";
    CHECK(contains(error_of(inside, "x"), inside.string()));
    CHECK_THROWS_WITH_AS(require_writable_file(inside), doctest::Contains("not writable"),
                         std::runtime_error);
    fs::permissions(dir.path / "locked", fs::perms::owner_all);
  }
}

TEST_CASE("a write that fails midway leaves the old file and no temporary") {
  scratch_folder dir;
  const auto file = dir.path / "out.txt";
  put(file, "old");
  // A file size limit makes write() fail with EFBIG after the temporary exists.
  struct rlimit saved {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 16;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  const std::string error = error_of(file, std::string(4096, 'y'));
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &saved) == 0);
  std::signal(SIGXFSZ, old_handler);
  CHECK(contains(error, file.string()));
  CHECK(read(file) == "old");
  CHECK(dir.names() == std::vector<std::string>{"out.txt"});
}

TEST_CASE("temporaries have unique names and never touch the user's files") {
  scratch_folder dir;
  const auto file = dir.path / "out.png";
  // Names an older writer used as fixed temporaries: the user's files now.
  for (const char* name : {"out.png.partial", "out.png.tmp", ".out.png.tmp"}) {
    put(dir.path / name, name);
  }
  write_file_atomically(file, "png");
  for (const char* name : {"out.png.partial", "out.png.tmp", ".out.png.tmp"}) {
    CHECK(read(dir.path / name) == name);
  }
  // Writers racing for one file: each temporary is its own, and one whole write wins.
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) write_file_atomically(file, std::string(1000, 'a' + t));
    });
  }
  for (auto& w : writers) w.join();
  const std::string last = read(file);
  CHECK(last.size() == 1000);
  CHECK(last == std::string(1000, last[0]));
  CHECK(dir.names() ==
        std::vector<std::string>{".out.png.tmp", "out.png", "out.png.partial", "out.png.tmp"});
}

TEST_CASE("output checks create nothing; ensure_writable_folder makes the folder") {
  scratch_folder dir;
  CHECK_NOTHROW(require_writable_file(dir.path / "new.txt"));
  CHECK_NOTHROW(require_writable_folder(dir.path / "a" / "b"));
  CHECK(dir.names().empty());
  put(dir.path / "file", "f");
  CHECK_THROWS_WITH_AS(require_writable_folder(dir.path / "file" / "sub"),
                       doctest::Contains("is not a folder"), std::runtime_error);
  CHECK_THROWS_WITH_AS(require_writable_file(dir.path / "none" / "x.txt"),
                       doctest::Contains((dir.path / "none" / "x.txt").c_str()),
                       std::runtime_error);
  CHECK_NOTHROW(ensure_writable_folder(dir.path / "a" / "b"));
  CHECK(fs::is_directory(dir.path / "a" / "b"));
  CHECK_THROWS_WITH_AS(ensure_writable_folder(dir.path / "file"),
                       doctest::Contains("is not a folder"), std::runtime_error);
}
