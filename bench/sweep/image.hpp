#pragma once
//! @file image.hpp
//! A small RGB rasteriser for the sweep's plots: rectangles, lines, text in a built-in 5x7
//! bitmap font (with descenders, 6x10 cell per character at scale 1), and PNG output (libpng).

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace microsched::sweep {

struct color {
  std::uint8_t r = 0, g = 0, b = 0;
  friend bool operator==(const color&, const color&) = default;
};

inline constexpr color white{255, 255, 255};
inline constexpr color black{0, 0, 0};
inline constexpr color grey{128, 128, 128};
inline constexpr color light_grey{220, 220, 220};

//! A perceptually ordered colour map (viridis, interpolated): t in [0, 1], dark blue to yellow.
[[nodiscard]] color colormap(double t);
//! Black or white, whichever reads better on `background`.
[[nodiscard]] color text_color_on(color background);

//! Font cell: characters advance by glyph_advance * scale; lines by glyph_line * scale.
inline constexpr int glyph_advance = 6;
inline constexpr int glyph_height = 7;  //!< cap height; descenders go one row below
inline constexpr int glyph_line = 10;

[[nodiscard]] int text_width(std::string_view text, int scale = 1);

class image {
 public:
  image(int width, int height, color background = white);

  [[nodiscard]] int width() const { return width_; }
  [[nodiscard]] int height() const { return height_; }
  [[nodiscard]] color at(int x, int y) const;
  [[nodiscard]] const std::vector<std::uint8_t>& rgb() const { return pixels_; }

  //! Pixels outside the image are ignored by every drawing call.
  void set(int x, int y, color c);
  void fill_rect(int x, int y, int w, int h, color c);
  void outline_rect(int x, int y, int w, int h, color c, int thickness = 1);
  //! A line `thickness` pixels wide; dash > 0 draws dash pixels on, dash off.
  void line(int x0, int y0, int x1, int y1, color c, int thickness = 1, int dash = 0);
  //! Text with its top-left corner at (x, y). Characters outside ASCII print as '?'.
  void text(int x, int y, std::string_view s, color c, int scale = 1);
  //! Text centred horizontally on x.
  void text_centered(int x, int y, std::string_view s, color c, int scale = 1);
  //! Text ending at x.
  void text_right(int x, int y, std::string_view s, color c, int scale = 1);
  //! Text turned a quarter to the left (reads bottom to top), centred vertically on y, with its
  //! top (the glyphs' top) at the left edge x.
  void text_vertical(int x, int y, std::string_view s, color c, int scale = 1);

 private:
  void glyph(int x, int y, char ch, color c, int scale, bool vertical);

  int width_, height_;
  std::vector<std::uint8_t> pixels_;  // (row, column, channel)
};

//! The image as PNG bytes (8-bit RGB). Throws std::runtime_error if libpng fails.
[[nodiscard]] std::string encode_png(const image& img);
//! Encodes and writes the image atomically (temporary file, then rename).
void write_png(const std::filesystem::path& file, const image& img);

}  // namespace microsched::sweep
