// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file cfe_counter.hpp
//! Control-flow efficiency (CFE) counted in-kernel: the share of thread-steps that are not masked
//! off, i.e. active lanes per issued warp-step divided by 32 (lin2018 eq. 2; ncu's
//! smsp__thread_inst_executed_per_inst_executed.ratio / 32 over the counted code).
//!
//! A kernel calls step() once per unit of divergent work (one loop iteration of a path, say).
//! The first active lane of the warp adds the number of active lanes and one step to its own
//! registers; flush() reduces them per warp and adds them with one atomic pair to a cfe_totals
//! in global memory. Counting is a compile-time switch: cfe_counter<false> is empty and its
//! calls vanish, so a kernel templated on it can be timed without counters and counted with
//! them from one binary. The default follows the build option MICROSCHED_CFE_COUNTERS.

#include "microsched/config.hpp"
#include "microsched/lane/lane_mask.hpp"

#if defined(MICROSCHED_CFE_COUNTERS) && MICROSCHED_CFE_COUNTERS
#define MICROSCHED_CFE_DEFAULT true
#else
#define MICROSCHED_CFE_DEFAULT false
#endif

namespace microsched::remap {

//! Sums in global memory (zero them before the launch).
struct cfe_totals {
  unsigned long long active_lanes;  //!< sum over counted warp-steps of the active lanes
  unsigned long long warp_steps;    //!< counted warp-steps
};

//! CFE in [0, 1]; 1 when nothing was counted.
[[nodiscard]] MICROSCHED_HD double cfe_ratio(const cfe_totals& totals) {
  return totals.warp_steps == 0 ? 1.0
                                : static_cast<double>(totals.active_lanes) /
                                      (static_cast<double>(totals.warp_steps) * warp_size);
}

//! Per-thread counter registers. @tparam Enabled compile-time switch (no code when false)
template <bool Enabled = MICROSCHED_CFE_DEFAULT>
class cfe_counter {
 public:
  static constexpr bool enabled = Enabled;

  //! @param lane this thread's lane in its warp
  MICROSCHED_DEVICE explicit cfe_counter(unsigned lane) : lane_(lane) {}

  //! Counts one warp-step of the code this thread is in, with the lanes active here.
  MICROSCHED_DEVICE void step() {
#if defined(__CUDA_ARCH__)
    const unsigned active = __activemask();
    if (static_cast<int>(lane_) == leader_of(active)) {
      active_ += static_cast<unsigned>(popcount(active));
      ++steps_;
    }
#endif
  }

  //! Adds this warp's counts to `totals`. Call where all the warp's threads have reconverged.
  MICROSCHED_DEVICE void flush(cfe_totals* totals) const {
#if defined(__CUDA_ARCH__)
    const unsigned active = __activemask();
    const unsigned long long lanes = __reduce_add_sync(active, active_);
    const unsigned long long steps = __reduce_add_sync(active, steps_);
    if (static_cast<int>(lane_) == leader_of(active) && steps != 0) {
      atomicAdd(&totals->active_lanes, lanes);
      atomicAdd(&totals->warp_steps, steps);
    }
#else
    (void)totals;
#endif
  }

 private:
  unsigned lane_;
  unsigned active_ = 0;  // per-thread partial sums: at most 32 per step (2^27 steps per thread)
  unsigned steps_ = 0;
};

//! The disabled counter: every call compiles to nothing.
template <>
class cfe_counter<false> {
 public:
  static constexpr bool enabled = false;
  MICROSCHED_DEVICE explicit cfe_counter(unsigned) {}
  MICROSCHED_DEVICE void step() {}
  MICROSCHED_DEVICE void flush(cfe_totals*) const {}
};

}  // namespace microsched::remap
