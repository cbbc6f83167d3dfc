// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "png_writer.hpp"

#include <png.h>

#include <stdexcept>
#include <string>

#include "microsched/io/atomic_file.hpp"

namespace microsched::samples {

namespace {
//! libpng's write callback: the encoded bytes collect in memory, written to disk in one go.
void append_bytes(png_structp png, png_bytep data, png_size_t size) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), size);
}
}  // namespace

void require_writable(const std::string& path) {
  require_writable_file(path);
}

void write_png(const std::string& path, const rgb_image& image) {
  if (image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != static_cast<std::size_t>(image.width) * image.height * 3) {
    throw std::invalid_argument("write_png: image size does not match its pixels");
  }
  std::string bytes;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info) {
    png_destroy_write_struct(&png, &info);
    throw std::runtime_error("libpng: out of memory");
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw std::runtime_error("libpng failed encoding '" + path + "'");
  }
  png_set_write_fn(png, &bytes, append_bytes, nullptr);
  png_set_IHDR(png, info, image.width, image.height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < image.height; ++y) {
    png_write_row(png, image.pixels.data() + static_cast<std::size_t>(y) * image.width * 3);
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  write_file_atomically(path, bytes);
}

}  // namespace microsched::samples
