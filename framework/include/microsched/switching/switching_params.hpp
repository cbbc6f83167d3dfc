#pragma once
//! @file switching_params.hpp
//! Run-time settings of context switching (nothing here sizes storage).

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "microsched/error.hpp"
#include "microsched/switching/task_context.hpp"

namespace microsched::switching {

struct switching_arguments {
  //! Deferred switching (§3.3): vote and switch on every n-th visit of a managed branch; the
  //! other visits follow the default path and park the contexts that need the other one.
  int switch_every = 1;
  //! Bit k: the default path of managed branch k is the then path (else path when clear).
  std::uint32_t default_then = 0;
  //! Vote threshold: when at least this many attached lanes need the then path, run the branch
  //! divergently like a vanilla kernel (no context moves). 33: always switch.
  int vanilla_threshold = 33;
  //! Order in which parked contexts of one (branch, path) are resumed: false, last parked first
  //! (stacks, the branch map of frey2012 §3.1); true, first parked first (rings), so that no
  //! context waits in the pool while younger ones cycle through the lanes.
  bool fifo = false;
  //! Tail sharing (tail_share.cuh): once the task source is exhausted, a warp holding at least
  //! this many parked contexts gives up to half of its largest list to a sibling warp of the
  //! block whose pool has emptied and whose lanes idle. 0: off (each warp finishes its own).
  int share_parked = 0;
  //! Tail sharing between all the warps on one SM (the blocks of an SM balance too), through
  //! queues in global memory; false: between the warps of a block, control in shared memory.
  bool share_sm = false;
  //! Tail mode (switching_gate::set_tail): once the task source is exhausted, a warp whose
  //! contexts all fit its lanes resumes the parked ones and runs managed branches divergently.
  bool tail_divergent = false;

  //! The driver is compiled with its tail code (sharing, tail mode) only where one is asked for,
  //! and for the hybrid pools only (switching_scheduler refuses the others).
  [[nodiscard]] constexpr bool tail_code() const { return share_parked > 0 || tail_divergent; }

  friend bool operator==(const switching_arguments&, const switching_arguments&) = default;
};

//! Throws std::invalid_argument naming the bad value.
inline void validate(const switching_arguments& a) {
  if (a.switch_every < 1) throw_invalid("switch_every", a.switch_every, "must be at least 1");
  if (a.vanilla_threshold < 1 || a.vanilla_threshold > 33) {
    throw_invalid("vanilla_threshold", a.vanilla_threshold, "must be in 1..33 (33: never)");
  }
  if (a.share_parked < 0)
    throw_invalid("share_parked", a.share_parked, "must be at least 0 (0: off)");
}

[[nodiscard]] inline std::string to_string(const switching_arguments& a) {
  std::string s =
      a.switch_every == 1 ? "immediate" : "deferred every " + std::to_string(a.switch_every);
  if (a.vanilla_threshold <= 32)
    s += ", vanilla at >=" + std::to_string(a.vanilla_threshold) + " then-lanes";
  s += a.fifo ? ", parked contexts first in first out" : ", parked contexts last in first out";
  if (a.share_parked > 0) {
    s += ", tail sharing from " + std::to_string(a.share_parked) + " parked" +
         (a.share_sm ? " per SM" : " per block");
  }
  if (a.tail_divergent) s += ", divergent tail";
  return s;
}

}  // namespace microsched::switching

namespace microsched::switching {

//! Shared memory a block of the switching driver needs: one context pool per warp. Pure, so the
//! host can print and test it; the scheduler evaluates it at compile time.
[[nodiscard]] constexpr std::size_t pool_shared_bytes(std::size_t pool_bytes, int block_threads) {
  return pool_bytes * static_cast<std::size_t>(block_threads / warp_size);
}

//! Throws std::invalid_argument when `need` bytes of shared memory per block exceed what the
//! device allows a block after opting in (`limit`), saying what to lower.
inline void check_shared_fit(std::size_t need, std::size_t limit, int contexts_per_warp,
                             std::size_t context_bytes, int block_threads) {
  if (need <= limit) return;
  throw std::invalid_argument(
      "context pool does not fit in shared memory: " + std::to_string(block_threads / warp_size) +
      " warps x " + std::to_string(contexts_per_warp) + " contexts x " +
      std::to_string(context_bytes) + " B (plus the branch map) = " + std::to_string(need) +
      " B per block, the device allows " + std::to_string(limit) +
      " B; lower ContextsPerWarp or BlockThreads, or shrink the context");
}

}  // namespace microsched::switching
