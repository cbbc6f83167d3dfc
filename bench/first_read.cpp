// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// first_read FILE [posix]: how long a process's first read of FILE takes, in microseconds,
// through a file stream (the default) or POSIX open/read. Run it in a fresh process each time:
// the first stream a process opens pays for its setup (docs/decisions.md, "The cache file read
// without file streams").
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::string(argv[2]) != "posix")) {
    std::fprintf(stderr, "usage: first_read FILE [posix]\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  std::string text;
  bool read = true;
  if (argc == 3) {
    const int fd = ::open(argv[1], O_RDONLY | O_CLOEXEC);
    read = fd >= 0;
    char chunk[4096];
    ssize_t got = 0;
    while (read && (got = ::read(fd, chunk, sizeof chunk)) > 0) {
      text.append(chunk, static_cast<std::size_t>(got));
    }
    read = read && got == 0;
    if (fd >= 0) ::close(fd);
  } else {
    std::ifstream in(argv[1], std::ios::binary);
    std::ostringstream all;
    all << in.rdbuf();
    read = static_cast<bool>(in);
    text = all.str();
  }
  const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
  if (!read) {
    std::fprintf(stderr, "first_read: error: cannot read '%s'\n", argv[1]);
    return 1;
  }
  std::printf("%s: %zu bytes, %.0f us\n", argc == 3 ? "posix" : "stream", text.size(),
              took.count());
  return 0;
}
