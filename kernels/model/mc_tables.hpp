// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file mc_tables.hpp
//! Marching-cubes case tables, generated: for each of the 256 corner cases (bit i set when
//! corner i is below the iso value, corner and edge numbering of the CUDA samples' marchingCubes),
//! the triangles that separate the inside corners. On every face the crossing edges are joined
//! in pairs, an ambiguous face (two diagonal inside corners) cutting off each inside corner, so
//! neighbouring cubes agree; each closed loop of crossing edges is fanned into triangles.

#include <array>
#include <cstdint>

namespace microsched::model_kernels {

struct mc_tables {
  std::array<std::array<std::int8_t, 16>, 256> triangles{};  //!< edge ids, -1 terminated
  std::array<std::uint8_t, 256> vertex_count{};              //!< 3 * triangles of the case
};

//! The tables (computed once). Throws std::logic_error if a case needs more than 15 vertices.
[[nodiscard]] const mc_tables& marching_cubes_tables();

}  // namespace microsched::model_kernels
