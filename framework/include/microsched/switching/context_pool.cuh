#pragma once
//! @file context_pool.cuh
//! The per-warp task context pool and branch map (frey2012 §3.1) in shared memory, CUB style:
//! the caller provides `temp_storage`; the object keeps the warp-uniform counts in registers
//! (every lane computes the same counts from the same ballots, so no barrier guards them).
//!
//! The branch map holds one stack of slot indices per (managed branch, path): the contexts
//! parked before that branch that need that path. Free slots form a third stack.

#include <cstdint>

#include "microsched/config.hpp"
#include "microsched/switching/task_context.hpp"
#include "microsched/switching/vote.hpp"

namespace microsched::switching {

//! @tparam Context the user's context type
//! @tparam ContextsPerWarp detached contexts the pool can hold (the paper found 64..160 best)
//! @tparam Branches managed branches of the program
template <class Context, int ContextsPerWarp, int Branches>
class context_pool {
  static_assert(ContextsPerWarp >= 1 && ContextsPerWarp <= 255,
                "ContextsPerWarp must be in 1..255: branch-map entries are one byte");
  static_assert(Branches >= 1 && Branches <= max_managed_branches,
                "a program has 1..32 managed branches");

 public:
  using slot = task_context<Context>;

  struct temp_storage {
    slot slots[ContextsPerWarp];                                // (slot)
    std::uint8_t branch_map[2 * Branches][ContextsPerWarp];     // (branch * 2 + path, depth) -> slot
    std::uint8_t free_stack[ContextsPerWarp];                   // (depth) -> slot
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
  [[nodiscard]] __device__ __forceinline__ bool empty() const { return free_ == ContextsPerWarp; }

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
    std::uint8_t* const take_stack = s_.branch_map[2 * K + (plan.path ? 1 : 0)];
    std::uint8_t* const park_stack = s_.branch_map[2 * K + (plan.path ? 0 : 1)];
    switch (lane.action) {
      case lane_action::run: mine.state = state_active; break;
      case lane_action::swap: {
        const std::uint8_t at = take_stack[lane.load_index];
        slot loaded = s_.slots[at];
        mine.state = state_parked(K);
        mine.path = !plan.path;
        s_.slots[at] = mine;
        park_stack[lane.push_index] = at;
        mine = loaded;
        mine.state = state_active;
        break;
      }
      case lane_action::store: {
        const std::uint8_t at = s_.free_stack[lane.free_index];
        mine.state = state_parked(K);
        mine.path = !plan.path;
        s_.slots[at] = mine;
        park_stack[lane.push_index] = at;
        mine.state = state_finished;  // the lane is empty now; the driver refills it
        break;
      }
      case lane_action::park:
        mine.state = state_parked(K);
        mine.path = !plan.path;
        break;
      case lane_action::fill: {
        const std::uint8_t at = take_stack[lane.load_index];
        mine = s_.slots[at];
        mine.state = state_active;
        s_.free_stack[lane.free_index] = at;
        break;
      }
      case lane_action::idle: break;
    }
    __syncwarp();
    commit<K>(plan);
  }

 private:
  template <int K>
  __device__ __forceinline__ void commit(const switch_plan& plan) {
    const auto then_after = static_cast<std::uint32_t>(plan.path ? plan.path_after() : plan.other_after());
    const auto else_after = static_cast<std::uint32_t>(plan.path ? plan.other_after() : plan.path_after());
    parked_[K] = (then_after << 16) | else_after;
    free_ = plan.free_after();
  }

  temp_storage& s_;
  std::uint32_t parked_[Branches];  //!< (branch) -> then count << 16 | else count
  int free_ = ContextsPerWarp;
};

}  // namespace microsched::switching
