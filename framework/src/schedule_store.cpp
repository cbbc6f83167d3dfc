// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/schedule_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <stdexcept>

#include "microsched/io/atomic_file.hpp"
#include "microsched/schedule/schedule_text.hpp"

namespace microsched {

namespace {
std::string first_line(const store_kind& kind) {
  return std::string(kind.name) + " " + std::to_string(kind.version);
}

[[noreturn]] void refuse_line(const std::string& origin, int line, const std::string& why) {
  throw std::invalid_argument(origin + ":" + std::to_string(line) + ": " + why);
}

//! Why a first line is not this kind and version: another kind, or another version of it.
std::string header_problem(std::string_view line, const store_kind& kind) {
  const std::string prefix = std::string(kind.name) + " ";
  if (line.substr(0, prefix.size()) == prefix) {
    const int version = store_version(line, kind);
    return "version " + std::string(line.substr(prefix.size())) + " of this file is not read (" +
           std::to_string(kind.version) +
           " is): " + (version > kind.version ? "a newer" : "an older") + " microsched wrote it";
  }
  return "not a " + std::string(kind.name) + " file (expected '" + first_line(kind) + "')";
}
}  // namespace

int store_version(std::string_view text, const store_kind& kind) {
  const std::string_view line = text.substr(0, text.find('\n'));
  const std::string prefix = std::string(kind.name) + " ";
  if (line.substr(0, prefix.size()) != prefix) return -1;
  const std::string_view number = line.substr(prefix.size());
  int version = -1;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), version);
  return ec == std::errc{} && end == number.data() + number.size() && version >= 0 ? version : -1;
}

std::string store_text(const store_kind& kind, const std::vector<store_record>& records) {
  std::string out = first_line(kind) + "\n";
  for (const auto& r : records) {
    if (r.keys.size() != kind.key_fields) {
      throw std::invalid_argument(std::string(kind.name) + ": a record has " +
                                  std::to_string(r.keys.size()) + " key fields, not " +
                                  std::to_string(kind.key_fields));
    }
    for (const auto& key : r.keys) {
      if (key.find_first_of("\t\r\n") != std::string::npos) {
        throw std::invalid_argument(std::string(kind.name) + ": the key field '" + key +
                                    "' holds a tab or a line break");
      }
      out += key;
      out += '\t';
    }
    out += schedule_text(r.schedule);
    out += '\n';
  }
  return out;
}

std::vector<store_record> parse_store(std::string_view text, const store_kind& kind,
                                      const std::string& origin) {
  std::vector<store_record> records;
  int number = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (number == 1) {
      if (line != first_line(kind)) refuse_line(origin, 1, header_problem(line, kind));
      continue;
    }
    if (line.empty()) continue;
    store_record r;
    r.line = number;
    std::size_t from = 0;
    for (std::size_t k = 0; k < kind.key_fields; ++k) {
      const std::size_t tab = line.find('\t', from);
      if (tab == std::string_view::npos) {
        refuse_line(origin, number,
                    "expected " + std::to_string(kind.key_fields + 1) + " tab-separated fields");
      }
      r.keys.emplace_back(line.substr(from, tab - from));
      from = tab + 1;
    }
    try {
      r.schedule = parse_schedule_text(line.substr(from));
    } catch (const std::invalid_argument& e) {
      refuse_line(origin, number, e.what());
    }
    records.push_back(std::move(r));
  }
  if (number == 0) refuse_line(origin, 1, "the file is empty");
  return records;
}

void save_store(const std::filesystem::path& file, const store_kind& kind,
                const std::vector<store_record>& records) {
  write_file_atomically(file, store_text(kind, records));
}

// POSIX reads: a process's first file stream costs far more than the read (decisions.md).
std::string read_store_text(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot read " + file.string());
  std::string text;
  char chunk[4096];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got > 0) {
      text.append(chunk, static_cast<std::size_t>(got));
    } else if (got == 0) {
      break;
    } else if (errno != EINTR) {  // a folder (EISDIR) or an I/O error
      ::close(fd);
      throw std::runtime_error("cannot read " + file.string());
    }
  }
  ::close(fd);
  return text;
}

std::vector<store_record> load_store(const std::filesystem::path& file, const store_kind& kind) {
  const std::string text = read_store_text(file);
  try {
    return parse_store(text, kind, file.string());
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

}  // namespace microsched
