// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file remap_variant.hpp
//! Which version of a divergent kernel runs: the original, or one remapped before its branch.

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "microsched/error.hpp"

namespace microsched::remap_kernels {

enum class remap_variant {
  original,          //!< the kernel as written: every warp runs every path its lanes need
  head_or_tail,      //!< HoT, 32-bit id pool (two paths)
  head_or_tail16,    //!< HoT, 16-bit id pool (two paths, half the shared memory)
  data_group_index,  //!< DGI (any number of paths)
};

[[nodiscard]] inline const char* variant_name(remap_variant v) {
  switch (v) {
    case remap_variant::original:
      return "original";
    case remap_variant::head_or_tail:
      return "hot";
    case remap_variant::head_or_tail16:
      return "hot16";
    case remap_variant::data_group_index:
      return "dgi";
  }
  return "?";
}

[[nodiscard]] inline remap_variant parse_variant(const std::string& name) {
  for (auto v : {remap_variant::original, remap_variant::head_or_tail,
                 remap_variant::head_or_tail16, remap_variant::data_group_index}) {
    if (name == variant_name(v)) return v;
  }
  throw std::invalid_argument("variant = " + name + ": expected original, hot, hot16 or dgi");
}

//! How branch conditions are drawn. Both give every element each path with probability 1/P.
enum class path_distribution {
  iid,       //!< independent draws: block counts vary, so remapped warps straddle group borders
  balanced,  //!< every block holds exactly S/P of each path, shuffled (lin2018 §4.2 setting)
  uniform,   //!< every element takes path 0: the divergence-free floor
};

[[nodiscard]] inline const char* distribution_name(path_distribution d) {
  switch (d) {
    case path_distribution::iid:
      return "iid";
    case path_distribution::balanced:
      return "balanced";
    case path_distribution::uniform:
      return "uniform";
  }
  return "?";
}

[[nodiscard]] inline path_distribution parse_distribution(const std::string& name) {
  for (auto d : {path_distribution::iid, path_distribution::balanced, path_distribution::uniform}) {
    if (name == distribution_name(d)) return d;
  }
  throw std::invalid_argument("distribution = " + name + ": expected iid, balanced or uniform");
}

//! Path numbers in [0, paths) for n elements processed in blocks of block_threads.
[[nodiscard]] inline std::vector<std::uint8_t> make_paths(int n, int paths, int block_threads,
                                                          path_distribution distribution,
                                                          std::uint32_t seed) {
  if (n < 0) throw_invalid("n", n, "must be >= 0");
  if (paths < 1 || paths > 255) throw_invalid("paths", paths, "must be in 1..255");
  if (block_threads < 1) throw_invalid("block_threads", block_threads, "must be >= 1");
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(n), 0);
  if (distribution == path_distribution::uniform) return out;
  if (distribution == path_distribution::iid) {
    std::uniform_int_distribution<int> draw(0, paths - 1);
    for (auto& p : out) p = static_cast<std::uint8_t>(draw(rng));
    return out;
  }
  for (int begin = 0; begin < n; begin += block_threads) {
    const int end = std::min(n, begin + block_threads);
    for (int i = begin; i < end; ++i) out[i] = static_cast<std::uint8_t>((i - begin) % paths);
    std::shuffle(out.begin() + begin, out.begin() + end, rng);
  }
  return out;
}

}  // namespace microsched::remap_kernels
