#include "sweep/image.hpp"

#include <png.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "microsched/tuning/atomic_write.hpp"
#include "sweep/font.hpp"

namespace microsched::sweep {

color colormap(double t) {
  // viridis at nine evenly spaced points
  static constexpr std::array<std::array<double, 3>, 9> stops = {{{68, 1, 84},
                                                                 {71, 44, 122},
                                                                 {59, 81, 139},
                                                                 {44, 113, 142},
                                                                 {33, 144, 141},
                                                                 {39, 173, 129},
                                                                 {92, 200, 99},
                                                                 {170, 220, 50},
                                                                 {253, 231, 37}}};
  if (!std::isfinite(t)) t = 0;
  t = std::clamp(t, 0.0, 1.0) * (stops.size() - 1);
  const auto i = std::min<std::size_t>(static_cast<std::size_t>(t), stops.size() - 2);
  const double f = t - static_cast<double>(i);
  const auto mix = [&](int ch) {
    return static_cast<std::uint8_t>(std::lround(stops[i][ch] * (1 - f) + stops[i + 1][ch] * f));
  };
  return {mix(0), mix(1), mix(2)};
}

color text_color_on(color bg) {
  const double luminance = 0.299 * bg.r + 0.587 * bg.g + 0.114 * bg.b;
  return luminance > 140 ? black : white;
}

int text_width(std::string_view text, int scale) {
  if (text.empty()) return 0;
  return (static_cast<int>(text.size()) * glyph_advance - 1) * scale;
}

image::image(int width, int height, color background) : width_(width), height_(height) {
  if (width < 1 || height < 1 || width > 16384 || height > 16384) {
    throw std::invalid_argument("image size " + std::to_string(width) + "x" +
                                std::to_string(height) + ": must be 1..16384 on each side");
  }
  pixels_.resize(static_cast<std::size_t>(width) * height * 3);
  fill_rect(0, 0, width, height, background);
}

color image::at(int x, int y) const {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return {};
  const std::size_t i = (static_cast<std::size_t>(y) * width_ + x) * 3;
  return {pixels_[i], pixels_[i + 1], pixels_[i + 2]};
}

void image::set(int x, int y, color c) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  const std::size_t i = (static_cast<std::size_t>(y) * width_ + x) * 3;
  pixels_[i] = c.r;
  pixels_[i + 1] = c.g;
  pixels_[i + 2] = c.b;
}

void image::fill_rect(int x, int y, int w, int h, color c) {
  const int x0 = std::max(x, 0), y0 = std::max(y, 0);
  const int x1 = std::min(x + w, width_), y1 = std::min(y + h, height_);
  for (int yy = y0; yy < y1; ++yy) {
    for (int xx = x0; xx < x1; ++xx) set(xx, yy, c);
  }
}

void image::outline_rect(int x, int y, int w, int h, color c, int thickness) {
  fill_rect(x, y, w, thickness, c);
  fill_rect(x, y + h - thickness, w, thickness, c);
  fill_rect(x, y, thickness, h, c);
  fill_rect(x + w - thickness, y, thickness, h, c);
}

void image::line(int x0, int y0, int x1, int y1, color c, int thickness, int dash) {
  // Bresenham, with a square pen of `thickness` pixels.
  const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
  const int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
  int err = dx + dy;
  const int half = (thickness - 1) / 2;
  for (int step = 0;; ++step) {
    if (dash <= 0 || (step / dash) % 2 == 0) fill_rect(x0 - half, y0 - half, thickness, thickness, c);
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x0 += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y0 += sy;
    }
  }
}

void image::glyph(int x, int y, char ch, color c, int scale, bool vertical) {
  const std::uint8_t* rows = detail::glyph_rows(ch);
  for (int row = 0; row < 8; ++row) {
    for (int col = 0; col < 5; ++col) {
      if ((rows[row] >> (4 - col) & 1) == 0) continue;
      if (vertical) {
        // turned a quarter left: glyph column -> up, glyph row -> right
        fill_rect(x + row * scale, y - (col + 1) * scale, scale, scale, c);
      } else {
        fill_rect(x + col * scale, y + row * scale, scale, scale, c);
      }
    }
  }
}

void image::text(int x, int y, std::string_view s, color c, int scale) {
  for (char ch : s) {
    glyph(x, y, ch, c, scale, false);
    x += glyph_advance * scale;
  }
}

void image::text_centered(int x, int y, std::string_view s, color c, int scale) {
  text(x - text_width(s, scale) / 2, y, s, c, scale);
}

void image::text_right(int x, int y, std::string_view s, color c, int scale) {
  text(x - text_width(s, scale), y, s, c, scale);
}

void image::text_vertical(int x, int y, std::string_view s, color c, int scale) {
  int yy = y + text_width(s, scale) / 2;
  for (char ch : s) {
    glyph(x, yy, ch, c, scale, true);
    yy -= glyph_advance * scale;
  }
}

namespace {
void append_bytes(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::string*>(png_get_io_ptr(png));
  out->append(reinterpret_cast<const char*>(data), length);
}
void no_flush(png_structp) {}
}  // namespace

std::string encode_png(const image& img) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  if (png == nullptr) throw std::runtime_error("PNG: cannot create the libpng writer");
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    throw std::runtime_error("PNG: cannot create the libpng info");
  }
  std::string bytes;
  std::vector<png_bytep> rows(static_cast<std::size_t>(img.height()));
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw std::runtime_error("PNG: libpng failed to encode the image");
  }
  png_set_write_fn(png, &bytes, append_bytes, no_flush);
  png_set_IHDR(png, info, static_cast<png_uint_32>(img.width()),
               static_cast<png_uint_32>(img.height()), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < img.height(); ++y) {
    rows[static_cast<std::size_t>(y)] =
        const_cast<png_bytep>(img.rgb().data() + static_cast<std::size_t>(y) * img.width() * 3);
  }
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return bytes;
}

void write_png(const std::filesystem::path& file, const image& img) {
  tuning::write_file_atomically(file, encode_png(img));
}

}  // namespace microsched::sweep
