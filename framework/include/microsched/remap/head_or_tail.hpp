// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file head_or_tail.hpp
//! Head-or-Tail (HoT, lin2018 §3.2): block-level reference redirection for a two-path branch.
//! Threads whose condition is true take slots from the head of a shared id pool, the others from
//! the tail range behind them; afterwards threads [0, heads) run the true path and [heads, S) the
//! false one, so every warp is pure except the one warp the border falls in.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "microsched/config.hpp"
#include "microsched/lane/lane_mask.hpp"
#include "microsched/remap/permutation.hpp"

namespace microsched::remap {

//! Block-wide HoT remap (the temp_storage idiom of CUB).
//!
//! Every thread of the block must call remap() (it contains block barriers) in a block of
//! exactly BlockThreads threads; any BlockThreads from 1 to 1024 works, partial warps included.
//! Cost per call: two barriers (the first also counts the heads, so a block whose threads all
//! take one path returns after it, untouched), one warp-aggregated atomicAdd per warp on a
//! packed head/tail counter, one shared store and one shared load per thread.
//! Before the temp_storage is reused (another remap in a loop, or a union with other storage),
//! the block must pass a __syncthreads().
//!
//! @tparam BlockThreads threads per block (the id pool has one slot per thread)
//! @tparam IdT          id-pool slot type: std::uint32_t, or std::uint16_t to halve the pool
template <int BlockThreads, class IdT = std::uint32_t>
class block_head_or_tail {
  static_assert(BlockThreads >= 1 && BlockThreads <= 1024,
                "block_head_or_tail: BlockThreads must be in 1..1024 (one CUDA block)");
  static_assert(std::is_same_v<IdT, std::uint32_t> || std::is_same_v<IdT, std::uint16_t>,
                "block_head_or_tail: the id pool holds std::uint32_t or std::uint16_t slots");

 public:
  //! Shared memory of one remap: the id pool and the packed head/tail counter.
  struct temp_storage {
    IdT pool[BlockThreads];  // (slot) -> native id of the data the slot's new owner takes
    unsigned counter;        // heads | tails << 16
  };
  //! Shared-memory cost, known at compile time.
  static constexpr std::size_t shared_bytes = sizeof(temp_storage);

  //! What a thread works on after the remap.
  struct result {
    unsigned id;      //!< native id (in the block) of the data this thread now processes
    bool cond;        //!< that data's branch condition (no re-evaluation needed)
    bool remapped;    //!< false when the whole block took one path and nothing moved
    unsigned ticket;  //!< counters before this warp's atomic (diagnostics and tests)
  };

  //! @param storage    shared memory, the same object for the whole block
  //! @param linear_tid this thread's rank in the block (e.g. cg::this_thread_block().thread_rank())
  MICROSCHED_DEVICE block_head_or_tail(temp_storage& storage, unsigned linear_tid)
      : storage_(storage), tid_(linear_tid) {}

  //! Remaps the block on one two-way condition. Returns the id this thread continues with.
  [[nodiscard]] MICROSCHED_DEVICE result remap(bool cond) {
#if defined(__CUDA_ARCH__)
    if (tid_ == 0) storage_.counter = 0;
    // Barrier 1 publishes the zeroed counter and counts the heads: a uniform block stops here.
    const unsigned heads = static_cast<unsigned>(__syncthreads_count(cond));
    if (heads == 0 || heads == BlockThreads) return {tid_, cond, false, 0};

    const unsigned warp = tid_ / warp_size;
    const unsigned lane = tid_ % warp_size;
    const unsigned lanes = warp_lanes(BlockThreads, warp);
    const unsigned head_lanes = __ballot_sync(lanes, cond);
    const unsigned tail_lanes = lanes & ~head_lanes;
    unsigned ticket = 0;
    if (lane == 0) {  // warp-aggregated: one atomic reserves the warp's head and tail ranges
      ticket =
          atomicAdd(&storage_.counter, hot_ticket(static_cast<unsigned>(popcount(head_lanes)),
                                                  static_cast<unsigned>(popcount(tail_lanes))));
    }
    ticket = __shfl_sync(lanes, ticket, 0);
    const unsigned rank = static_cast<unsigned>(rank_in_mask(cond ? head_lanes : tail_lanes, lane));
    storage_.pool[hot_slot(cond, ticket, rank, heads)] = static_cast<IdT>(tid_);
    __syncthreads();
    return {static_cast<unsigned>(storage_.pool[tid_]), tid_ < heads, true, ticket};
#else
    return {tid_, cond, false, 0};
#endif
  }

 private:
  temp_storage& storage_;
  unsigned tid_;
};

}  // namespace microsched::remap
