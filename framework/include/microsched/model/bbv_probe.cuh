// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file bbv_probe.cuh
//! In-kernel instrumentation of user-marked regions, switched at compile time:
//! - probe_mode::count: each thread counts its executions of every region in registers and
//!   writes its BBV row once at the end (one store per region per thread).
//! - probe_mode::time: each thread counts like count mode and also writes how many cycles its
//!   lane ran (clock64 from the probe's construction to flush). A warp's time is its longest
//!   lane; fit_latencies (latency.hpp) turns the warps of timed launches into region latencies.
//!   Two clock reads per thread, so the timed kernel is the counted one plus a few instructions.
//! - probe_mode::off: the probe is an empty class and every call compiles to nothing, so the
//!   timed kernel and the instrumented one come from the same source.
//! Regions are numbered 0..Regions-1 by the user and must not nest (an execution counts in one
//! region only). The region index is a template argument so the counters stay
//! in registers.
//!
//! @code
//! bbv_probe<2, Mode> probe;
//! for (int i = 0; i < trips; ++i) { body(); probe.template leave<0>(); }
//! if (rare) { fix_up(); probe.template leave<1>(); }
//! probe.flush(sink, item);
//! @endcode

#include <cstdint>

#include "microsched/config.hpp"

namespace microsched::model {

enum class probe_mode { off, count, time };

//! Where a probe writes, one row per item; no zeroing needed (every item's row is written).
//! count and time: `counts` (item, region). time: `cycles` (item), the lane's cycles.
struct bbv_sink {
  std::uint32_t* counts = nullptr;
  std::uint32_t* cycles = nullptr;
};

template <int Regions, probe_mode Mode>
class bbv_probe {
  static_assert(Regions >= 1, "bbv_probe needs at least one region");

 public:
  static constexpr probe_mode mode = Mode;

  //! Time mode starts the lane's clock here.
  MICROSCHED_DEVICE bbv_probe() {
#if defined(__CUDA_ARCH__)
    if constexpr (Mode == probe_mode::time) start_ = clock64();
#endif
  }

  //! Marks the end of one execution of region R.
  template <int R>
  MICROSCHED_DEVICE void leave() {
    static_assert(R >= 0 && R < Regions, "region index out of range");
    ++count_[R];
  }

  //! Writes this thread's counts as the BBV row of `item`, and in time mode the lane's cycles.
  MICROSCHED_DEVICE void flush(const bbv_sink& sink, std::uint32_t item) const {
#if defined(__CUDA_ARCH__)
#pragma unroll
    for (int r = 0; r < Regions; ++r)
      sink.counts[static_cast<std::size_t>(item) * Regions + r] = count_[r];
    if constexpr (Mode == probe_mode::time)
      sink.cycles[item] = static_cast<std::uint32_t>(min(clock64() - start_, 0xffffffffll));
#else
    (void)sink;
    (void)item;
#endif
  }

 private:
  std::uint32_t count_[Regions] = {};
  long long start_ = 0;
};

//! The switched-off probe: no state, no code.
template <int Regions>
class bbv_probe<Regions, probe_mode::off> {
 public:
  static constexpr probe_mode mode = probe_mode::off;
  template <int R>
  MICROSCHED_DEVICE void leave() {}
  MICROSCHED_DEVICE void flush(const bbv_sink&, std::uint32_t) const {}
};

}  // namespace microsched::model
