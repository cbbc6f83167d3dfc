// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/tuning/atomic_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace microsched::tuning {

namespace {
[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path, int err) {
  throw std::runtime_error(what + " '" + path.string() + "': " + std::strerror(err));
}

std::filesystem::path folder_of(const std::filesystem::path& file) {
  const auto parent = file.parent_path();
  return parent.empty() ? std::filesystem::path(".") : parent;
}
}  // namespace

void write_file_atomically(const std::filesystem::path& file, std::string_view bytes) {
  if (file.empty()) throw std::runtime_error("output path is empty");
  if (std::filesystem::is_directory(file)) {
    throw std::runtime_error("cannot write '" + file.string() + "': it is a folder");
  }
  std::string tmp = (folder_of(file) / ("." + file.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail("cannot create a file in the folder of", file, errno);
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("cannot write", file, err);
    }
    written += static_cast<std::size_t>(n);
  }
  // mkstemp creates 0600; results are ordinary files.
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot write", file, err);
  }
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot replace", file, err);
  }
}

void ensure_writable_folder(const std::filesystem::path& folder) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) {
    throw std::runtime_error("cannot create output folder '" + folder.string() +
                             "': " + ec.message());
  }
  if (!std::filesystem::is_directory(folder)) {
    throw std::runtime_error("output folder '" + folder.string() + "' is not a folder");
  }
  std::string probe = (folder / ".write-probe-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) fail("output folder is not writable:", folder, errno);
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace microsched::tuning
