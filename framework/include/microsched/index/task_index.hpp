// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file task_index.hpp
//! Task ids of 2-D and 3-D problems split into coordinates with the divisions done once on the
//! host (fast_divmod). A program keeps one of these by value and calls it in `begin`:
//!
//! \code
//! struct my_program {
//!   microsched::task_index_2d index;  // = microsched::task_index_2d(width, height)
//!   __device__ context begin(microsched::task_id t) const {
//!     const auto [x, y] = index(t);   // x fastest, as row-major pixels
//!     ...
//! \endcode
//! With fewer than 2^32 tasks the split runs in 32-bit arithmetic, like a vanilla kernel's
//! `blockIdx.x * blockDim.x + threadIdx.x`.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "microsched/config.hpp"
#include "microsched/index/fast_divmod.hpp"

namespace microsched {

struct coord_2d {
  std::uint32_t x;
  std::uint32_t y;
};

struct coord_3d {
  std::uint32_t x;
  std::uint32_t y;
  std::uint32_t z;
};

//! Row-major 2-D tasks: task = y * width + x, x in [0, width), y in [0, height).
class task_index_2d {
 public:
  task_index_2d() = default;
  //! Throws std::invalid_argument for a zero extent or more than 2^32 - 1 tasks.
  task_index_2d(std::uint32_t width, std::uint32_t height) : width_(check(width, height)) {}

  [[nodiscard]] MICROSCHED_HD coord_2d operator()(task_id t) const {
    std::uint32_t y = 0, x = 0;
    width_.divmod(static_cast<std::uint32_t>(t), y, x);
    return {x, y};
  }
  [[nodiscard]] MICROSCHED_HD std::uint32_t width() const { return width_.divisor(); }

 private:
  static std::uint32_t check(std::uint32_t width, std::uint32_t height) {
    if (width == 0 || height == 0) {
      throw std::invalid_argument("task_index_2d: extent " + std::to_string(width) + " x " +
                                  std::to_string(height) + ": both must be at least 1");
    }
    if (static_cast<std::uint64_t>(width) * height > 0xffffffffull) {
      throw std::invalid_argument("task_index_2d: " + std::to_string(width) + " x " +
                                  std::to_string(height) +
                                  " tasks: at most 2^32 - 1 (split larger problems yourself)");
    }
    return width;
  }
  fast_divmod<std::uint32_t> width_{1};
};

//! Row-major 3-D tasks: task = (z * height + y) * width + x.
class task_index_3d {
 public:
  task_index_3d() = default;
  //! Throws std::invalid_argument for a zero extent or more than 2^32 - 1 tasks.
  task_index_3d(std::uint32_t width, std::uint32_t height, std::uint32_t depth)
      : plane_(check(width, height, depth)), width_(width) {}

  [[nodiscard]] MICROSCHED_HD coord_3d operator()(task_id t) const {
    std::uint32_t z = 0, in_plane = 0, y = 0, x = 0;
    plane_.divmod(static_cast<std::uint32_t>(t), z, in_plane);
    width_.divmod(in_plane, y, x);
    return {x, y, z};
  }

 private:
  static std::uint32_t check(std::uint32_t width, std::uint32_t height, std::uint32_t depth) {
    if (width == 0 || height == 0 || depth == 0) {
      throw std::invalid_argument("task_index_3d: extent " + std::to_string(width) + " x " +
                                  std::to_string(height) + " x " + std::to_string(depth) +
                                  ": all must be at least 1");
    }
    if (static_cast<std::uint64_t>(width) * height * depth > 0xffffffffull) {
      throw std::invalid_argument("task_index_3d: " + std::to_string(width) + " x " +
                                  std::to_string(height) + " x " + std::to_string(depth) +
                                  " tasks: at most 2^32 - 1 (split larger problems yourself)");
    }
    return width * height;
  }
  fast_divmod<std::uint32_t> plane_{1};
  fast_divmod<std::uint32_t> width_{1};
};

}  // namespace microsched
