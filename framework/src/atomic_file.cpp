// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace microsched {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& file, const std::string& why) {
  throw std::runtime_error("cannot write '" + file.string() + "': " + why);
}

std::string reason(int err) {
  return std::strerror(err);
}

fs::path folder_of(const fs::path& file) {
  const auto parent = file.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

//! The file a path names once its symbolic links are followed (the path itself when it is none).
fs::path follow_links(const fs::path& file) {
  fs::path at = file;
  for (int depth = 0; depth < 40; ++depth) {
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return at;
    std::error_code ec;
    const fs::path next = fs::read_symlink(at, ec);
    if (ec) fail(file, "cannot read the link '" + at.string() + "': " + ec.message());
    at = next.is_absolute() ? next : at.parent_path() / next;
  }
  fail(file, "too many levels of symbolic links");
}

//! The target's status when it exists, after the rules of atomic_file.hpp; nullopt when it is new.
std::optional<struct stat> existing_target(const fs::path& file, const fs::path& target) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::nullopt;
    fail(file, reason(errno));
  }
  if (S_ISDIR(st.st_mode)) fail(file, "it is a folder");
  if (!S_ISREG(st.st_mode)) fail(file, "it is not a regular file");
  if ((st.st_mode & 0222) == 0 || ::access(target.c_str(), W_OK) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    fail(file, std::string("it is read-only (mode ") + mode +
                   "); it was left as it is: make it writable or choose another path");
  }
  if (st.st_nlink > 1) {
    fail(file, "it has " + std::to_string(st.st_nlink) +
                   " hard links, which replacing it would split; choose another path");
  }
  return st;
}

void require_writable_parent(const fs::path& file, const fs::path& folder) {
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    fail(file, "its folder '" + folder.string() + "': " + reason(errno));
  }
  if (!S_ISDIR(st.st_mode)) fail(file, "'" + folder.string() + "' is not a folder");
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    fail(file, "its folder '" + folder.string() + "' is not writable: " + reason(errno));
  }
}

std::string unique_suffix() {
  thread_local std::mt19937_64 random{std::random_device{}() ^
                                      (static_cast<std::uint64_t>(::getpid()) << 32)};
  char text[24];
  std::snprintf(text, sizeof text, "%012llx",
                static_cast<unsigned long long>(random() & 0xffffffffffffULL));
  return text;
}

//! Creates a new file beside `target` with a name no other file has; returns its descriptor.
int create_temporary(const fs::path& file, const fs::path& target, std::string& name) {
  const fs::path folder = folder_of(target);
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = (folder / ("." + target.filename().string() + ".tmp-" + unique_suffix())).string();
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST) {
      fail(file, "cannot create a file in its folder '" + folder.string() + "': " + reason(errno));
    }
  }
  fail(file, "no unused temporary name in '" + folder.string() + "'");
}

//! Removes the temporary and throws: every failure after the temporary exists ends here.
[[noreturn]] void abandon(int fd, const std::string& temporary, const fs::path& file,
                          const std::string& why) {
  if (fd >= 0) ::close(fd);
  ::unlink(temporary.c_str());
  fail(file, why);
}

void write_all(int fd, const std::string& temporary, const fs::path& file, std::string_view bytes) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      abandon(fd, temporary, file, reason(errno));
    }
    written += static_cast<std::size_t>(n);
  }
}

//! The old file's owner and mode on the new one; chown first, since it clears set-id bits.
void keep_owner_and_mode(int fd, const std::string& temporary, const fs::path& file,
                         const struct stat& old) {
  struct stat now {};
  if (::fstat(fd, &now) != 0) abandon(fd, temporary, file, reason(errno));
  if ((now.st_uid != old.st_uid || now.st_gid != old.st_gid) &&
      ::fchown(fd, old.st_uid, old.st_gid) != 0) {
    abandon(fd, temporary, file,
            "its owner (user " + std::to_string(old.st_uid) + ", group " +
                std::to_string(old.st_gid) + ") could not be kept: " + reason(errno));
  }
  if (::fchmod(fd, old.st_mode & 07777) != 0) abandon(fd, temporary, file, reason(errno));
}

void sync_folder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the rename is done; a folder that cannot be opened cannot be synced
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_file_atomically(const fs::path& file, std::string_view bytes) {
  if (file.empty()) throw std::runtime_error("cannot write a file with an empty path");
  const fs::path target = follow_links(file);
  const auto old = existing_target(file, target);
  std::string temporary;
  const int fd = create_temporary(file, target, temporary);
  write_all(fd, temporary, file, bytes);
  if (old) keep_owner_and_mode(fd, temporary, file, *old);
  if (::fsync(fd) != 0) abandon(fd, temporary, file, reason(errno));
  if (::close(fd) != 0) abandon(-1, temporary, file, reason(errno));
  if (::rename(temporary.c_str(), target.c_str()) != 0) {
    abandon(-1, temporary, file, "cannot replace it: " + reason(errno));
  }
  sync_folder(folder_of(target));
}

void require_writable_file(const fs::path& file) {
  if (file.empty()) throw std::runtime_error("cannot write a file with an empty path");
  const fs::path target = follow_links(file);
  (void)existing_target(file, target);
  require_writable_parent(file, folder_of(target));
}

void require_writable_folder(const fs::path& folder) {
  const fs::path wanted = folder.empty() ? fs::path(".") : folder;
  const auto refuse = [&](const std::string& why) {
    throw std::runtime_error("cannot use folder '" + wanted.string() + "': " + why);
  };
  std::vector<fs::path> missing;  // from the nearest existing ancestor down to `wanted`
  fs::path at = wanted;
  while (true) {
    struct stat st {};
    if (::stat(at.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) refuse("'" + at.string() + "' is not a folder");
      if (::access(at.c_str(), W_OK | X_OK) != 0) {
        refuse("'" + at.string() + "' is not writable: " + reason(errno));
      }
      break;
    }
    if (errno != ENOENT && errno != ENOTDIR) refuse(reason(errno));
    missing.insert(missing.begin(), at);
    const fs::path parent = at.parent_path();
    at = parent.empty() || parent == at ? fs::path(".") : parent;
  }
  // Where folders are missing, make them and take them away again: some file systems refuse
  // folders that access() allows (/proc, read-only mounts). Only empty folders made here go.
  std::size_t made = 0;
  int err = 0;
  for (; made < missing.size(); ++made) {
    if (::mkdir(missing[made].c_str(), 0777) != 0) {
      err = errno;
      break;
    }
  }
  for (std::size_t i = made; i > 0; --i) ::rmdir(missing[i - 1].c_str());
  if (made < missing.size()) {
    refuse("cannot make '" + missing[made].string() + "': " + reason(err));
  }
}

void ensure_writable_folder(const fs::path& folder) {
  require_writable_folder(folder);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    throw std::runtime_error("cannot create folder '" + folder.string() + "': " + ec.message());
  }
}

}  // namespace microsched
