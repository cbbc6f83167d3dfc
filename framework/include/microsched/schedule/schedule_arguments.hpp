#pragma once
//! @file schedule_arguments.hpp
//! What a user chooses at run time (CUTLASS-style Arguments). Nothing here sizes storage, so
//! every value can change without recompiling.

#include <cstdint>
#include <string>

#include "microsched/fetch/fetch_control.hpp"
#include "microsched/schedule/pool_strategy.hpp"

namespace microsched {

struct schedule_arguments {
  pool_strategy strategy = pool_strategy::hybrid;
  fetch_control fetch = fetch_control::any();
  std::uint64_t chunk = 32;  //!< tasks per grab from the level above (Local: tasks per block)
  int deferral = 64;         //!< steps between two fetch checks (amortises the ballot)
  int blocks_per_sm = 0;     //!< 0: automatic, from occupancy (see grid_blocks)

  friend bool operator==(const schedule_arguments&, const schedule_arguments&) = default;
};

//! Throws std::invalid_argument naming the first bad value: chunk 0, deferral < 1, a negative
//! blocks per SM, an idle threshold outside 1..32.
void validate(const schedule_arguments& args);

//! "hybrid any chunk=32 deferral=64 blocks/SM=auto"
[[nodiscard]] std::string to_string(const schedule_arguments& args);

//! Grid size in blocks for a launch. Pure: the caller queries the SM count and the occupancy
//! (blocks of this kernel that fit on one SM) from the device. With blocks_per_sm = 0 the grid
//! takes as many blocks per SM as fit, but at most `auto_limit` when that is positive. Throws
//! std::invalid_argument when the request cannot run: more blocks per SM than fit, a kernel that
//! fits zero blocks, or a Local grid over the launch limit.
[[nodiscard]] std::uint64_t grid_blocks(const schedule_arguments& args, std::uint64_t num_tasks,
                                        int sm_count, int max_blocks_per_sm, int auto_limit = 0);

}  // namespace microsched
