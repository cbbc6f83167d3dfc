#include "png_writer.hpp"

#include <png.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>

namespace microsched::samples {

namespace {
struct file_closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

std::string temporary_beside(const std::string& path) { return path + ".partial"; }
}  // namespace

void check_writable(const std::string& path) {
  const std::string probe = temporary_beside(path);
  file_ptr f(std::fopen(probe.c_str(), "wb"));
  if (!f) throw std::runtime_error("cannot write '" + path + "': the folder is missing or not writable");
  f.reset();
  std::remove(probe.c_str());
}

void write_png(const std::string& path, const rgb_image& image) {
  if (image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != static_cast<std::size_t>(image.width) * image.height * 3) {
    throw std::invalid_argument("write_png: image size does not match its pixels");
  }
  const std::string partial = temporary_beside(path);
  {
    file_ptr f(std::fopen(partial.c_str(), "wb"));
    if (!f) throw std::runtime_error("cannot write '" + path + "'");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info) {
      png_destroy_write_struct(&png, &info);
      throw std::runtime_error("libpng: out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
      png_destroy_write_struct(&png, &info);
      f.reset();
      std::remove(partial.c_str());
      throw std::runtime_error("libpng failed writing '" + path + "'");
    }
    png_init_io(png, f.get());
    png_set_IHDR(png, info, image.width, image.height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < image.height; ++y) {
      png_write_row(png, image.pixels.data() + static_cast<std::size_t>(y) * image.width * 3);
    }
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    if (std::fflush(f.get()) != 0) {
      f.reset();
      std::remove(partial.c_str());
      throw std::runtime_error("cannot write '" + path + "': disk full?");
    }
  }
  std::error_code ec;
  std::filesystem::rename(partial, path, ec);
  if (ec) {
    std::remove(partial.c_str());
    throw std::runtime_error("cannot write '" + path + "': " + ec.message());
  }
}

}  // namespace microsched::samples
