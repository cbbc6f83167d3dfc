#pragma once
//! @file bbv_probe.cuh
//! In-kernel instrumentation of user-marked regions, switched at compile time:
//! - probe_mode::count: each thread counts its executions of every region in registers and
//!   writes its BBV row once at the end (one store per region per thread).
//! - probe_mode::time: each thread also reads clock64() around every region execution and adds
//!   the cycles and executions to per-region sums (per-region latency on this GPU).
//! - probe_mode::span: each thread counts like count mode and also records when it started
//!   (globaltimer, ns) and how many cycles it ran (clock64 from the probe's construction to
//!   flush), so one launch gives every item's BBV and its lane's time.
//! - probe_mode::off: the probe is an empty class and every call compiles to nothing, so the
//!   timed kernel and the instrumented one come from the same source.
//! Regions are numbered 0..Regions-1 by the user and must not nest (a timed outer region would
//! include the inner one's cycles). The region index is a template argument so the counters stay
//! in registers.
//!
//! @code
//! bbv_probe<2, Mode> probe;
//! for (int i = 0; i < trips; ++i) { probe.enter(); body(); probe.template leave<0>(); }
//! if (rare) { probe.enter(); fix_up(); probe.template leave<1>(); }
//! probe.flush(sink, item);
//! @endcode

#include <cstdint>

#include "microsched/config.hpp"

namespace microsched::model {

enum class probe_mode { off, count, time, span };

//! Where a probe writes. count: `counts` (item, region), zero not needed (every row is
//! written). time: `cycles` and `hits` (region), zeroed before the launch. span: `counts` and
//! `spans` (item, 2): the start in ns since the launch's first start is not known in-kernel, so
//! the low 32 bits of globaltimer, then the cycles the lane ran.
struct bbv_sink {
  std::uint32_t* counts = nullptr;
  unsigned long long* cycles = nullptr;
  unsigned long long* hits = nullptr;
  std::uint32_t* spans = nullptr;
};

template <int Regions, probe_mode Mode>
class bbv_probe {
  static_assert(Regions >= 1, "bbv_probe needs at least one region");

 public:
  static constexpr probe_mode mode = Mode;

  //! Span mode reads the clocks here: the thread's time starts when its probe is made.
  MICROSCHED_DEVICE bbv_probe() {
#if defined(__CUDA_ARCH__)
    if constexpr (Mode == probe_mode::span) {
      std::uint64_t ns;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
      started_ns_ = static_cast<std::uint32_t>(ns);
      start_ = clock64();
    }
#endif
  }

  //! Marks the start of a region execution (time mode reads the clock).
  MICROSCHED_DEVICE void enter() {
#if defined(__CUDA_ARCH__)
    if constexpr (Mode == probe_mode::time) start_ = clock64();
#endif
  }

  //! Marks the end of one execution of region R.
  template <int R>
  MICROSCHED_DEVICE void leave() {
    static_assert(R >= 0 && R < Regions, "region index out of range");
#if defined(__CUDA_ARCH__)
    if constexpr (Mode == probe_mode::time) cycles_[R] += clock64() - start_;
#endif
    ++count_[R];
  }

  //! Writes this thread's counts as the BBV row of `item` (count mode) or adds its cycles and
  //! executions to the per-region sums (time mode).
  MICROSCHED_DEVICE void flush(const bbv_sink& sink, std::uint32_t item) const {
#if defined(__CUDA_ARCH__)
    if constexpr (Mode == probe_mode::count || Mode == probe_mode::span) {
#pragma unroll
      for (int r = 0; r < Regions; ++r)
        sink.counts[static_cast<std::size_t>(item) * Regions + r] = count_[r];
      if constexpr (Mode == probe_mode::span) {
        sink.spans[2 * static_cast<std::size_t>(item)] = started_ns_;
        sink.spans[2 * static_cast<std::size_t>(item) + 1] =
            static_cast<std::uint32_t>(clock64() - start_);
      }
    } else {
#pragma unroll
      for (int r = 0; r < Regions; ++r) {
        if (count_[r] == 0) continue;
        atomicAdd(sink.cycles + r, static_cast<unsigned long long>(cycles_[r]));
        atomicAdd(sink.hits + r, static_cast<unsigned long long>(count_[r]));
      }
    }
#else
    (void)sink;
    (void)item;
#endif
  }

 private:
  std::uint32_t count_[Regions] = {};
  long long cycles_[Mode == probe_mode::time ? Regions : 1] = {};
  long long start_ = 0;
  std::uint32_t started_ns_ = 0;
};

//! The switched-off probe: no state, no code.
template <int Regions>
class bbv_probe<Regions, probe_mode::off> {
 public:
  static constexpr probe_mode mode = probe_mode::off;
  MICROSCHED_DEVICE void enter() {}
  template <int R>
  MICROSCHED_DEVICE void leave() {}
  MICROSCHED_DEVICE void flush(const bbv_sink&, std::uint32_t) const {}
};

}  // namespace microsched::model
