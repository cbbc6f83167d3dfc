#pragma once
//! @file switching_gate.cuh
//! The gate a managed program's step receives in the switching driver: take(branch<K>, cond)
//! votes, picks the path, and swaps task contexts through the warp's context pool (frey2012
//! §3.2), or follows the default path on deferred visits (§3.3).

#include "microsched/config.hpp"
#include "microsched/switching/context_pool.cuh"
#include "microsched/switching/managed_program.hpp"
#include "microsched/switching/switching_params.hpp"
#include "microsched/switching/vote.hpp"

namespace microsched::switching {

//! @tparam Tail compiled with the tail mode (switching_arguments::tail_divergent; set_tail()):
//!   the default instantiation carries none of its code or registers.
//! @tparam Fifo the pool's lists are rings (switching_arguments::fifo; see context_pool).
template <class Context, int ContextsPerWarp, int Branches, bool Tail = false, bool Fifo = false>
class switching_gate {
 public:
  using pool_type = context_pool<Context, ContextsPerWarp, Branches, Fifo>;
  using slot = typename pool_type::slot;
  //! Every lane of the warp calls the program's step together (see collective_gate).
  static constexpr bool collective = true;

  //! `mine` is the lane's attached context: the gate swaps it in place.
  __device__ __forceinline__ switching_gate(pool_type& pool, slot& mine,
                                            const switching_arguments& args, unsigned lane)
      : pool_(pool),
        mine_(mine),
        lane_(lane),
        every_(static_cast<unsigned>(args.switch_every)),
        default_then_(args.default_then),
        threshold_(args.vanilla_threshold) {
#pragma unroll
    for (int k = 0; k < Branches; ++k) countdown_[k] = every_;
  }

  //! Warp-uniform, Tail only: the task source is exhausted and tail_divergent is on. Then a warp
  //! whose contexts (attached and parked) all fit its lanes resumes the parked ones into empty
  //! lanes and runs each managed branch divergently, every lane its own path, as a vanilla
  //! kernel does: in the tail the latency of the last contexts bounds the run, and a context
  //! parked for the minority path would wait while the warp runs the other one.
  __device__ __forceinline__ void set_tail(bool tail) {
    static_assert(Tail, "set_tail: compile the gate with Tail = true");
    tail_ = tail;
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
    if constexpr (Tail) {
      if (tail_ && warp_size - popcount(m.empty) + pool_.parked() <= warp_size) {
        return drain<K>(m, counts, at, need);
      }
    }
    if (divergent_pass(m, threshold_)) {
      if (at) mine_.state = state_active;  // every lane its own path, as in a vanilla kernel
      return at && need;
    }
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
  //! The tail mode's visit (set_tail): empty lanes load the contexts parked for the path that
  //! has more of them; no context is parked; every lane at the branch runs its own path.
  template <int K>
  __device__ __forceinline__ bool drain(branch_masks m, pool_counts counts, bool at, bool need) {
    const bool path = counts.then_parked > counts.else_parked;
    m.want_then = path ? m.at_branch : 0u;  // no movers: every lane at the branch runs
    const switch_plan plan = plan_switch(m, counts, path);
    if (plan.quiet()) {
      if (at) mine_.state = state_active;
      return at && need;
    }
    const lane_plan lane = plan_lane(plan, lane_);
    pool_.template apply<K>(plan, lane, mine_);  // run: active, fill: loaded and active
    return (at && need) || (lane.action == lane_action::fill && path);
  }

  __device__ __forceinline__ void park_or_run(bool path, bool need, std::uint8_t here) {
    if (need == path) {
      mine_.state = state_active;
    } else {
      mine_.state = here;
      mine_.path = need;
    }
  }

  pool_type& pool_;
  slot& mine_;
  unsigned lane_;
  unsigned every_;
  std::uint32_t default_then_;
  int threshold_;
  bool tail_ = false;             //!< Tail only: see set_tail()
  unsigned countdown_[Branches];  //!< (branch) visits left until the next vote, warp-uniform
};

}  // namespace microsched::switching
