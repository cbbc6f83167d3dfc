// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file png_writer.hpp
//! Writes an 8-bit RGB image as PNG (libpng). The file appears whole or not at all: the image is
//! encoded in memory and written with write_file_atomically (io/atomic_file.hpp: unique
//! temporary, fsync, rename; read-only targets refused, links followed, the mode kept).

#include <cstdint>
#include <string>
#include <vector>

namespace microsched::samples {

struct rgb_image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  //!< (row, column, channel), 3 bytes a pixel
};

//! Throws std::runtime_error naming the path when it cannot be written.
void write_png(const std::string& path, const rgb_image& image);

//! Throws std::runtime_error naming the path unless write_png can be expected to write it
//! (require_writable_file: creates and removes nothing), so a bad --output fails before any work.
void require_writable(const std::string& path);

}  // namespace microsched::samples
