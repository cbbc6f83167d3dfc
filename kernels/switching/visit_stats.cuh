// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file visit_stats.cuh
//! Diagnostics of a run (never timed): a wrapper program that counts, per visit of the step under
//! a collective gate (the switching driver), the warp's active lanes before the step and the lanes
//! that run the then path of a managed branch, and that stamps each task's begin and end with the
//! GPU's global timer. Under a non-collective gate (the vanilla kernel) it only stamps.

#include <cstdint>

#include "microsched/config.hpp"
#include "microsched/lane/lane_mask.hpp"
#include "microsched/switching/managed_program.hpp"

namespace microsched::switching_workloads::detail {

//! Totals per SM (indexed by %smid, so that only the warps of one SM share a counter).
struct visit_counters {
  unsigned long long steps;         //!< visits of the step (per warp)
  unsigned long long active_lanes;  //!< sum over visits of the lanes active before the step
  unsigned long long then_steps;    //!< visits in which some lane ran a then path
  unsigned long long then_lanes;    //!< sum over those visits of the lanes running it
};
inline constexpr int visit_counter_slots = 1024;  //!< >= any GPU's SM count

__device__ __forceinline__ unsigned stats_sm_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

__device__ __forceinline__ unsigned stats_lane_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned long long stats_clock_ns() {
  unsigned long long r;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r));
  return r;
}

template <class Gate>
struct stats_gate {
  static constexpr bool collective = switching::collective_gate<Gate>;
  Gate& inner;
  visit_counters* slot;

  [[nodiscard]] __device__ __forceinline__ bool active() const { return inner.active(); }
  template <int K>
  [[nodiscard]] __device__ __forceinline__ bool take(switching::branch_index<K> b, bool cond) {
    const bool then = inner.take(b, cond);
    if constexpr (collective) {
      const unsigned m = __ballot_sync(full_mask, then);
      if (m != 0 && stats_lane_id() == 0) {
        atomicAdd(&slot->then_steps, 1ull);
        atomicAdd(&slot->then_lanes, static_cast<unsigned long long>(popcount(m)));
      }
    }
    return then;
  }
};

template <class Program>
struct stats_program {
  using context = typename Program::context;
  static constexpr int managed_branches = Program::managed_branches;

  Program inner;
  visit_counters* counters = nullptr;      //!< visit_counter_slots entries, zeroed
  unsigned long long* begin_ns = nullptr;  //!< per task
  unsigned long long* end_ns = nullptr;    //!< per task

  __device__ __forceinline__ context begin(task_id t) const {
    begin_ns[t] = stats_clock_ns();
    return inner.begin(t);
  }
  template <class Gate>
  __device__ __forceinline__ bool step(context& c, Gate& gate) const {
    visit_counters* slot = nullptr;
    if constexpr (switching::collective_gate<Gate>) {
      slot = counters + stats_sm_id() % visit_counter_slots;
      const unsigned m = __ballot_sync(full_mask, gate.active());
      if (stats_lane_id() == 0) {
        atomicAdd(&slot->steps, 1ull);
        atomicAdd(&slot->active_lanes, static_cast<unsigned long long>(popcount(m)));
      }
    }
    stats_gate<Gate> counted{gate, slot};
    return inner.step(c, counted);
  }
  __device__ __forceinline__ void end(task_id t, const context& c) const {
    inner.end(t, c);
    end_ns[t] = stats_clock_ns();
  }
};

}  // namespace microsched::switching_workloads::detail
