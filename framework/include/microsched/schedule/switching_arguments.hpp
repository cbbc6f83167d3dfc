// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file switching_arguments.hpp
//! Run-time settings of task-context switching (frey2012 §3), read by the switching policy. A
//! plain aggregate with no host headers: the kernel receives it by value.

#include <cstdint>

namespace microsched {

struct switching_arguments {
  //! Deferred switching (§3.3): vote and switch on every n-th visit of a managed branch; the
  //! other visits follow the default path and park the contexts that need the other one.
  int switch_every = 1;
  //! Bit k: the default path of managed branch k is the then path (else path when clear).
  std::uint32_t default_then = 0;
  //! Order in which parked contexts of one (branch, path) are resumed: false, last parked first
  //! (stacks, the branch map of frey2012 §3.1); true, first parked first (rings), so that no
  //! context waits in the pool while younger ones cycle through the lanes. Compiled into the
  //! kernel (a run-time check slows the Monte Carlo branch workload).
  bool fifo = false;

  friend constexpr bool operator==(const switching_arguments&,
                                   const switching_arguments&) = default;
};

}  // namespace microsched
