#pragma once
//! @file tail_share.cuh
//! Sharing parked contexts between the warps of a block once the task source is exhausted (the
//! tail of a run): a warp whose pool has emptied and whose lanes idle asks for work; a sibling
//! warp whose pool still holds at least `share_parked` contexts gives up to half of its largest
//! (branch, path) list, through a block queue, and the asking warp resumes them in its empty
//! lanes. Without it, a warp leaves as soon as its own contexts are done while a sibling
//! still holds a hundred parked ones, and the SM runs the last rays on a few warps.
//!
//! Groups: the warps of a block (control words in shared memory), or all the warps on one SM
//! (switching_arguments::share_sm; control words in global memory, indexed by %smid), so that
//! the blocks of an SM balance too.
//!
//! Synchronisation (warps run independently; nothing here waits on a barrier): the queue's
//! control words are only ever touched by atomics (lane 0 of a warp); the queue's contexts live
//! in global memory, written and read only under the group's queue lock, with a fence before
//! the lock is released. A context is always in exactly one place: a lane, a pool, or a queue.
//!
//! Leaving: a warp leaves only when its lanes and pool are empty, the queue is empty and no
//! sibling holds `share_parked` or more parked contexts. A warp that gave contexts away cannot
//! leave before the queue has emptied, so every context given is taken by some warp.

#include "microsched/config.hpp"
#include "microsched/lane/lane_mask.hpp"
#include "microsched/switching/context_pool.cuh"
#include "microsched/switching/task_context.hpp"

namespace microsched::switching {

//! Contexts a group's queue holds: one warp's lanes.
inline constexpr int tail_queue_capacity = warp_size;

//! Control words of one group's queue (atomics only): [0] lock (1 while a warp moves contexts in
//! or out of the queue), [1] contexts in the queue, [2] warps waiting for contexts, [3] warps
//! holding at least share_parked parked contexts.
inline constexpr int tail_control_words = 4;

//! Where the driver's groups keep their queues: `queue` (tail_queue_capacity slots per group)
//! and, for SM groups, `control` (tail_control_words per group, zeroed before the launch) in
//! global memory. Block groups keep their control words in shared memory.
template <class Slot>
struct tail_share_params {
  Slot* queue = nullptr;
  int* control = nullptr;
  int groups = 0;  //!< SM groups: warps on SM s share group s % groups
};

//! The multiprocessor the calling thread runs on.
[[nodiscard]] __device__ __forceinline__ unsigned sm_id() {
  unsigned id = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

template <class Context, int ContextsPerWarp, int Branches, bool Fifo = false>
class tail_share {
 public:
  using pool_type = context_pool<Context, ContextsPerWarp, Branches, Fifo>;
  using slot = typename pool_type::slot;

  //! A block group's control words in shared memory. Zeroed by one thread before a block
  //! barrier (init()).
  struct temp_storage {
    int control[tail_control_words];
  };

  //! Zeroes the control words; call from one thread, then a block barrier, before any warp of
  //! the block constructs a tail_share.
  static __device__ __forceinline__ void init(temp_storage& s) {
#pragma unroll
    for (int i = 0; i < tail_control_words; ++i) s.control[i] = 0;
  }

  //! `control`: the group's tail_control_words (shared or global memory); `queue`: its
  //! tail_queue_capacity slots in global memory. share_parked >= 1.
  __device__ __forceinline__ tail_share(int* control, slot* queue, int share_parked, unsigned lane)
      : lock_(control[0]),
        count_(control[1]),
        hungry_count_(control[2]),
        holders_(control[3]),
        queue_(queue),
        share_(share_parked),
        lane_(lane) {}

  //! Warp-collective, warp-uniform call, once per driver iteration after the task source is
  //! exhausted: updates this warp's published state, gives contexts to a hungry sibling, or
  //! takes contexts from the queue into empty lanes (`empty`: the lanes holding no context).
  __device__ __forceinline__ void exchange(pool_type& pool, slot& mine, unsigned empty) {
    const bool holder = pool.parked() >= share_;
    if (holder != holder_) {
      if (lane_ == 0) atomicAdd(&holders_, holder ? 1 : -1);
      holder_ = holder;
    }
    const bool hungry = pool.empty() && popcount(empty) >= warp_size / 2;
    set_hungry(hungry);
    if (holder) {
      int wanted = 0;
      if (lane_ == 0) wanted = atomicAdd(&hungry_count_, 0);
      wanted = __shfl_sync(full_mask, wanted, 0);
      if (wanted > 0) give(pool);
    } else if (pool.empty() && empty != 0) {
      take(mine, empty);
    }
  }

  //! Warp-collective: the warp holds nothing; true when it may leave (the queue is empty and no
  //! sibling holds enough parked contexts to give). Else it backs off briefly: the caller loops.
  [[nodiscard]] __device__ __forceinline__ bool may_leave() {
    int state = 0;
    if (lane_ == 0) {
      const int queued = atomicAdd(&count_, 0);
      const int holders = atomicAdd(&holders_, 0);
      state = queued != 0 ? 1 : (holders != 0 ? 2 : 0);
    }
    state = __shfl_sync(full_mask, state, 0);
    if (state == 0) {
      set_hungry(false);
      return true;
    }
    if (state == 2) __nanosleep(500);
    return false;
  }

 private:
  static_assert(sizeof(slot) % sizeof(unsigned) == 0, "a slot moves as 32-bit words");
  static constexpr int slot_words = static_cast<int>(sizeof(slot) / sizeof(unsigned));

  //! Queue slots move through L2 (cache-global loads and stores), so that warps of other blocks
  //! on the SM, or of another SM sharing the group, never read a stale L1 line.
  static __device__ __forceinline__ void store(slot& to, const slot& from) {
    const auto* src = reinterpret_cast<const unsigned*>(&from);
    auto* dst = reinterpret_cast<unsigned*>(&to);
#pragma unroll
    for (int w = 0; w < slot_words; ++w) __stcg(dst + w, src[w]);
  }
  [[nodiscard]] static __device__ __forceinline__ slot load(const slot& from) {
    slot to;
    const auto* src = reinterpret_cast<const unsigned*>(&from);
    auto* dst = reinterpret_cast<unsigned*>(&to);
#pragma unroll
    for (int w = 0; w < slot_words; ++w) dst[w] = __ldcg(src + w);
    return to;
  }

  __device__ __forceinline__ void set_hungry(bool hungry) {
    if (hungry != hungry_) {
      if (lane_ == 0) atomicAdd(&hungry_count_, hungry ? 1 : -1);
      hungry_ = hungry;
    }
  }

  //! Lane 0 takes the queue lock and returns the queue's count, broadcast.
  __device__ __forceinline__ int lock() {
    int count = 0;
    if (lane_ == 0) {
      while (atomicCAS(&lock_, 0, 1) != 0) __nanosleep(32);
      __threadfence();
      count = atomicAdd(&count_, 0);
    }
    return __shfl_sync(full_mask, count, 0);
  }

  //! Every lane fences its queue accesses; lane 0 publishes the count and releases the lock.
  __device__ __forceinline__ void unlock(int count) {
    __threadfence();
    __syncwarp();
    if (lane_ == 0) {
      atomicExch(&count_, count);
      __threadfence();
      atomicExch(&lock_, 0);
    }
    __syncwarp();
  }

  //! Gives up to half of the largest (branch, path) list to the queue.
  __device__ __forceinline__ void give(pool_type& pool) {
    int best_k = 0;
    bool best_path = false;
    int best = 0;
    largest<0>(pool, best_k, best_path, best);
    const int count = lock();
    const int n = min_int(best / 2, tail_queue_capacity - count);
    if (n > 0) {
      slot out{};
      export_from<0>(pool, best_k, best_path, n, out);
      if (static_cast<int>(lane_) < n) store(queue_[count + static_cast<int>(lane_)], out);
    }
    unlock(n > 0 ? count + n : count);
  }

  //! Takes up to popcount(empty) contexts from the queue into the empty lanes, in lane order.
  __device__ __forceinline__ void take(slot& mine, unsigned empty) {
    int count = 0;
    if (lane_ == 0) count = atomicAdd(&count_, 0);  // a hint; the lock decides
    if (__shfl_sync(full_mask, count, 0) == 0) return;
    count = lock();
    const int n = min_int(count, popcount(empty));
    if ((empty >> lane_) & 1u) {
      const int rank = rank_in_mask(empty, lane_);
      if (rank < n) mine = load(queue_[count - 1 - rank]);  // parked, with its branch and path
    }
    unlock(count - n);
  }

  template <int K>
  static __device__ __forceinline__ void largest(const pool_type& pool, int& k, bool& path,
                                                 int& best) {
    const pool_counts c = pool.template counts<K>();
    if (c.then_parked > best) {
      best = c.then_parked;
      k = K;
      path = true;
    }
    if (c.else_parked > best) {
      best = c.else_parked;
      k = K;
      path = false;
    }
    if constexpr (K + 1 < Branches) largest<K + 1>(pool, k, path, best);
  }

  template <int K>
  __device__ __forceinline__ void export_from(pool_type& pool, int k, bool path, int n, slot& out) {
    if (k == K) {
      pool.template export_parked<K>(path, n, lane_, out);
      return;
    }
    if constexpr (K + 1 < Branches) export_from<K + 1>(pool, k, path, n, out);
  }

  int& lock_;
  int& count_;
  int& hungry_count_;
  int& holders_;
  slot* queue_;
  int share_;
  unsigned lane_;
  bool holder_ = false;  //!< warp-uniform: counted in holders_
  bool hungry_ = false;  //!< warp-uniform: counted in hungry_count_
};

}  // namespace microsched::switching
