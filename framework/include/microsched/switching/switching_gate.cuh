// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file switching_gate.cuh
//! The gate a managed program's step receives in the switching driver: take(branch<K>, cond)
//! votes, picks the path, and swaps task contexts through the warp's context pool (frey2012
//! §3.2), or follows the default path on deferred visits (§3.3).

#include "microsched/config.hpp"
#include "microsched/schedule/switching_arguments.hpp"
#include "microsched/switching/context_pool.cuh"
#include "microsched/switching/managed_program.hpp"
#include "microsched/switching/vote.hpp"

namespace microsched::switching {

//! @tparam Fifo the pool's lists are rings (switching_arguments::fifo; see context_pool).
template <class Context, int ContextsPerWarp, int Branches, bool Fifo = false>
class switching_gate {
 public:
  using pool_type = context_pool<Context, ContextsPerWarp, Branches, Fifo>;
  using slot = typename pool_type::slot;
  //! Every lane of the warp calls the program's step together (see collective_gate).
  static constexpr bool collective = true;

  //! Warp-collective. The gate owns the warp's pool view and the lane's attached context (it
  //! swaps the context in place), so the driver's lane holds one object with no references
  //! between its members: references between members of one object kept the switching kernel's
  //! state in a 104-byte stack frame (ptxas -v), values keep it in registers.
  __device__ __forceinline__ switching_gate(typename pool_type::temp_storage& pool_storage,
                                            const switching_arguments& args, unsigned lane)
      : pool_(pool_storage, lane),
        lane_(lane),
        every_(static_cast<unsigned>(args.switch_every)),
        default_then_(args.default_then) {
#pragma unroll
    for (int k = 0; k < Branches; ++k) countdown_[k] = every_;
  }

  //! The lane's attached context (state_finished: the lane is empty).
  [[nodiscard]] __device__ __forceinline__ slot& mine() {
    return mine_;
  }
  [[nodiscard]] __device__ __forceinline__ const slot& mine() const {
    return mine_;
  }
  //! The warp's context pool.
  [[nodiscard]] __device__ __forceinline__ const pool_type& pool() const {
    return pool_;
  }

  //! This lane holds an active context: run the step's code (false while parked or empty).
  [[nodiscard]] __device__ __forceinline__ bool active() const {
    return mine_.state == state_active;
  }

  //! Warp-collective managed branch K. `cond` is read only from active lanes. Returns true on
  //! the lanes that run the then path now; lanes that run the else path get false and stay
  //! active(); lanes left without a fitting context get false and are not active().
  template <int K>
  [[nodiscard]] __device__ __forceinline__ bool take(branch_index<K>, bool cond) {
    static_assert(K >= 0 && K < Branches, "take(branch<K>): K must be below managed_branches");
    const std::uint8_t here = state_parked(K);
    const bool at = mine_.state == state_active || mine_.state == here;
    const bool need = mine_.state == state_active ? cond : mine_.path;
    if (every_ > 1) {
      // Deferred switching: a countdown, not a modulo, so that a deferred visit costs a few
      // instructions; the vote runs when it reaches zero.
      if (--countdown_[K] != 0) {
        const bool path = (default_then_ >> K) & 1u;  // the default path, no ballot
        if (at) park_or_run(path, need, here);        // contexts needing the other one park
        return active() && path;
      }
      countdown_[K] = every_;
    }
    branch_masks m;
    m.at_branch = __ballot_sync(full_mask, at);
    m.want_then = __ballot_sync(full_mask, at && need);
    const pool_counts counts = pool_.template counts<K>();
    // Fast paths, warp-uniform: everyone at the branch agrees and the pool holds nothing for the
    // other path; then only empty lanes could change anything, and only if there is a context
    // parked for this path.
    const bool all_else = m.want_then == 0 && counts.then_parked == 0;
    const bool all_then = m.want_then == m.at_branch && counts.else_parked == 0 && m.at_branch != 0;
    if (all_else || all_then) {
      const int fillable = all_else ? counts.else_parked : counts.then_parked;
      if (fillable == 0 || __ballot_sync(full_mask, mine_.state == state_finished) == 0) {
        if (at) mine_.state = state_active;
        return at && all_then;
      }
    }
    m.empty = __ballot_sync(full_mask, mine_.state == state_finished);
    const bool path = choose_path(m, counts);
    const switch_plan plan = plan_switch(m, counts, path);
    if (plan.quiet()) {
      if (at) park_or_run(path, need, here);
    } else {
      pool_.template apply<K>(plan, plan_lane(plan, lane_), mine_);
    }
    return active() && path;
  }

 private:
  __device__ __forceinline__ void park_or_run(bool path, bool need, std::uint8_t here) {
    if (need == path) {
      mine_.state = state_active;
    } else {
      mine_.state = here;
      mine_.path = need;
    }
  }

  pool_type pool_;
  slot mine_{};  // state_finished: the lane starts empty
  unsigned lane_;
  unsigned every_;
  std::uint32_t default_then_;
  unsigned countdown_[Branches];  //!< (branch) visits left until the next vote, warp-uniform
};

}  // namespace microsched::switching
