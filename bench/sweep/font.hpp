#pragma once
//! @file font.hpp
//! The built-in bitmap font: 8 rows of 5 pixels per printable ASCII character (32..126).

#include <cstdint>

namespace microsched::sweep::detail {

//! Row bits of character `c` (bit 4 is the leftmost pixel); row 7 holds descenders.
//! Characters outside 32..126 give the glyph of '?'.
[[nodiscard]] const std::uint8_t* glyph_rows(char c);

}  // namespace microsched::sweep::detail
