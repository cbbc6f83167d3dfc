// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file task_context.hpp
//! A task context as frey2012 §3.1 defines it: the user's state of one task plus a state byte
//! (0 active, 1..254 parked before managed branch state-1, 255 finished). The driver keeps one in
//! each lane's registers; the context pool stores detached ones in shared memory.

#include <cstdint>

#include "microsched/config.hpp"

namespace microsched::switching {

inline constexpr std::uint8_t state_active = 0;
inline constexpr std::uint8_t state_finished = 255;  //!< also: a lane that holds no context
inline constexpr int max_managed_branches = 32;      //!< default paths are one bit per branch

//! State byte of a context parked before managed branch `k` (0-based).
[[nodiscard]] MICROSCHED_HD std::uint8_t state_parked(int k) {
  return static_cast<std::uint8_t>(k + 1);
}

template <class Context>
struct task_context {
  Context user{};
  task_id task = 0;
  std::uint8_t state = state_finished;
  bool path = false;  //!< while parked: the path the context needs at its branch (true: then)
};

}  // namespace microsched::switching
