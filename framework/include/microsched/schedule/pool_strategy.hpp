#pragma once
//! @file pool_strategy.hpp
//! Work distribution strategies (frey2012 §4.2, Table 1).

#include <string>

namespace microsched {

enum class pool_strategy {
  local,   //!< per-block pool in shared memory, statically filled with `chunk` tasks; grid = tasks/chunk
  global,  //!< per-lane private pool in registers refilled from the global pool, `chunk` per lane
  hybrid,  //!< per-warp local pool refilled from the global pool by one atomic per grab
};

[[nodiscard]] pool_strategy parse_pool_strategy(const std::string& text);
[[nodiscard]] std::string to_string(pool_strategy strategy);

}  // namespace microsched
