// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file context_pool.cuh
//! The per-warp task context pool and branch map (frey2012 §3.1) in shared memory, CUB style:
//! the caller provides `temp_storage`; the object keeps the warp-uniform counts in registers
//! (every lane computes the same counts from the same ballots, so no barrier guards them).
//!
//! The branch map holds one list of slot indices per (managed branch, path): the contexts
//! parked before that branch that need that path. Free slots form a stack. A list is a stack
//! (last parked, first resumed: frey2012) or, with `Fifo`, a ring whose start (head) the pool
//! keeps warp-uniform in registers: switch_plan's indices are positions counted from the top of
//! a stack; a ring resumes from its other end, so a load at stack position i reads ring position
//! available - 1 - i, and pushes append at the same positions in both.

#include <cstdint>

#include "microsched/config.hpp"
#include "microsched/switching/task_context.hpp"
#include "microsched/switching/vote.hpp"

namespace microsched::switching {

//! @tparam Context the user's context type
//! @tparam ContextsPerWarp detached contexts the pool can hold (the paper found 64..160 best)
//! @tparam Branches managed branches of the program
//! @tparam Fifo the lists are rings, resumed first parked first (switching_arguments::fifo); a
//!   compile-time choice, so that neither order pays for the other's code in the switch
template <class Context, int ContextsPerWarp, int Branches, bool Fifo = false>
class context_pool {
  static_assert(ContextsPerWarp >= 1 && ContextsPerWarp <= 255,
                "ContextsPerWarp must be in 1..255: branch-map entries are one byte");
  static_assert(Branches >= 1 && Branches <= max_managed_branches,
                "a program has 1..32 managed branches");

 public:
  using slot = task_context<Context>;

  struct temp_storage {
    slot slots[ContextsPerWarp];                             // (slot)
    std::uint8_t branch_map[2 * Branches][ContextsPerWarp];  // (branch * 2 + path, depth) -> slot
    std::uint8_t free_stack[ContextsPerWarp];                // (depth) -> slot
  };

  static constexpr int capacity = ContextsPerWarp;

  //! Warp-collective: every lane of the warp constructs it with its lane id.
  __device__ __forceinline__ context_pool(temp_storage& storage, unsigned lane) : s_(storage) {
    for (int i = static_cast<int>(lane); i < ContextsPerWarp; i += warp_size) {
      s_.free_stack[i] = static_cast<std::uint8_t>(i);
    }
#pragma unroll
    for (int k = 0; k < Branches; ++k) parked_[k] = 0;
    __syncwarp();
  }

  //! No context is parked in the pool (warp-uniform).
  [[nodiscard]] __device__ __forceinline__ bool empty() const {
    return free_ == ContextsPerWarp;
  }

  //! Contexts parked in the pool, all branches and paths (warp-uniform).
  [[nodiscard]] __device__ __forceinline__ int parked() const {
    return ContextsPerWarp - free_;
  }

  //! Parked contexts of branch K per path, and free slots (warp-uniform).
  template <int K>
  [[nodiscard]] __device__ __forceinline__ pool_counts counts() const {
    return {static_cast<int>(parked_[K] >> 16), static_cast<int>(parked_[K] & 0xffffu), free_};
  }

  //! Warp-collective: carries out one lane's part of `plan` at managed branch K on the lane's
  //! attached context `mine`, then updates the counts. Lanes touch disjoint stack entries and
  //! slots (see plan_lane), so one __syncwarp at the end orders this switch before the next.
  template <int K>
  __device__ __forceinline__ void apply(const switch_plan& plan, const lane_plan& lane,
                                        slot& mine) {
    const int take_list = 2 * K + (plan.path ? 1 : 0);
    const int park_list = 2 * K + (plan.path ? 0 : 1);
    std::uint8_t* const take_stack = s_.branch_map[take_list];
    std::uint8_t* const park_stack = s_.branch_map[park_list];
    // Stack positions to entries: identity for stacks; rings start at head_ and wrap. head_ is
    // indexed with constants only (a run-time index would move it to local memory).
    const auto load_at = [&](int i) {
      if constexpr (Fifo) {
        const int at = ring_head<K>(plan.path) + plan.available - 1 - i;
        return at >= ContextsPerWarp ? at - ContextsPerWarp : at;
      } else {
        return i;
      }
    };
    const auto push_at = [&](int i) {
      if constexpr (Fifo) {
        const int at = ring_head<K>(!plan.path) + i;
        return at >= ContextsPerWarp ? at - ContextsPerWarp : at;
      } else {
        return i;
      }
    };
    switch (lane.action) {
      case lane_action::run:
        mine.state = state_active;
        break;
      case lane_action::swap: {
        const std::uint8_t at = take_stack[load_at(lane.load_index)];
        slot loaded = s_.slots[at];
        mine.state = state_parked(K);
        mine.path = !plan.path;
        s_.slots[at] = mine;
        park_stack[push_at(lane.push_index)] = at;
        mine = loaded;
        mine.state = state_active;
        break;
      }
      case lane_action::store: {
        const std::uint8_t at = s_.free_stack[lane.free_index];
        mine.state = state_parked(K);
        mine.path = !plan.path;
        s_.slots[at] = mine;
        park_stack[push_at(lane.push_index)] = at;
        mine.state = state_finished;  // the lane is empty now; the driver refills it
        break;
      }
      case lane_action::park:
        mine.state = state_parked(K);
        mine.path = !plan.path;
        break;
      case lane_action::fill: {
        const std::uint8_t at = take_stack[load_at(lane.load_index)];
        mine = s_.slots[at];
        mine.state = state_active;
        s_.free_stack[lane.free_index] = at;
        break;
      }
      case lane_action::idle:
        break;
    }
    __syncwarp();
    if constexpr (Fifo) {  // the loaded contexts left the start of the ring
      const int moved = ring_head<K>(plan.path) + plan.swaps + plan.fills;
      const auto head =
          static_cast<std::uint8_t>(moved >= ContextsPerWarp ? moved - ContextsPerWarp : moved);
      if (plan.path) {
        head_[2 * K + 1] = head;
      } else {
        head_[2 * K] = head;
      }
    }
    commit<K>(plan);
  }

 private:
  //! Fifo only: where the ring of branch K's `path` list starts (warp-uniform).
  template <int K>
  [[nodiscard]] __device__ __forceinline__ int ring_head(bool path) const {
    return path ? head_[2 * K + 1] : head_[2 * K];
  }

  template <int K>
  __device__ __forceinline__ void commit(const switch_plan& plan) {
    const auto then_after =
        static_cast<std::uint32_t>(plan.path ? plan.path_after() : plan.other_after());
    const auto else_after =
        static_cast<std::uint32_t>(plan.path ? plan.other_after() : plan.path_after());
    parked_[K] = (then_after << 16) | else_after;
    free_ = plan.free_after();
  }

  temp_storage& s_;
  std::uint32_t parked_[Branches];        //!< (branch) -> then count << 16 | else count
  std::uint8_t head_[2 * Branches] = {};  //!< (branch * 2 + path) -> ring start (Fifo only)
  int free_ = ContextsPerWarp;
};

}  // namespace microsched::switching
