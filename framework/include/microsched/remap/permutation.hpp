// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file permutation.hpp
//! The pure arithmetic of in-kernel thread-data remapping (lin2018 §3), shared by the device
//! primitives and the host tests: warp shapes of a block (which may end in a partial warp), the
//! Head-or-Tail slot of a thread, and the Data Group Indexing layout and search. Everything here
//! is a MICROSCHED_HD function of plain values, so the host tests exercise the very code the
//! device runs.

#include <cstddef>

#include "microsched/config.hpp"
#include "microsched/lane/lane_mask.hpp"

namespace microsched::remap {

//! Warps of a block of `block_threads` threads; the last one is partial when 32 does not divide it.
[[nodiscard]] constexpr MICROSCHED_HD unsigned warps_in_block(unsigned block_threads) {
  return (block_threads + warp_size - 1) / warp_size;
}

//! Lanes that exist in warp `warp` of the block: 32, or fewer in a trailing partial warp.
[[nodiscard]] constexpr MICROSCHED_HD unsigned lanes_in_warp(unsigned block_threads,
                                                             unsigned warp) {
  const unsigned left = block_threads - warp * warp_size;
  return left < warp_size ? left : warp_size;
}

//! Ballot mask of the lanes that exist in warp `warp` (the member mask of its *_sync calls).
[[nodiscard]] constexpr MICROSCHED_HD unsigned warp_lanes(unsigned block_threads, unsigned warp) {
  const unsigned lanes = lanes_in_warp(block_threads, warp);
  return lanes == warp_size ? full_mask : (1u << lanes) - 1u;
}

//! Position of the n-th (0-based) set bit of `mask`; `mask` must have more than n set bits.
//! Five popcounts, no loop over bits.
[[nodiscard]] MICROSCHED_HD unsigned nth_set_bit(unsigned mask, unsigned n) {
  unsigned position = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (unsigned width = 16; width > 0; width /= 2) {
    const unsigned low = static_cast<unsigned>(popcount(mask & ((1u << width) - 1u)));
    if (n >= low) {
      n -= low;
      mask >>= width;
      position += width;
    }
  }
  return position;
}

// ------------------------------------------------------------------------------------------------
// Head-or-Tail (HoT, lin2018 Algorithm 1)
// ------------------------------------------------------------------------------------------------

//! HoT keeps its head and tail counters in one 32-bit word (head count in the low 16 bits, tail
//! count in the high 16 bits), so one warp-aggregated atomicAdd reserves both of a warp's ranges.
//! The value returned to the warp (its *ticket*) says how many head and tail slots the warps
//! served before it took.
[[nodiscard]] constexpr MICROSCHED_HD unsigned hot_ticket(unsigned heads, unsigned tails) {
  return heads | (tails << 16);
}
[[nodiscard]] constexpr MICROSCHED_HD unsigned hot_ticket_heads(unsigned ticket) {
  return ticket & 0xffffu;
}
[[nodiscard]] constexpr MICROSCHED_HD unsigned hot_ticket_tails(unsigned ticket) {
  return ticket >> 16;
}

//! Slot of the id pool a thread writes its id to. Head threads fill [0, heads) upwards; as the
//! first barrier of the remap already counted the heads, the border is known and tail threads
//! fill [heads, S) upwards too (the paper fills the tail downwards). Within a warp both keep lane
//! order; across warps the order is the order the atomics were served, so the pool is stable
//! whenever the warps are served in warp order.
//! @param head        the thread's branch condition (true: head path)
//! @param ticket      the warp's ticket (counters before its atomic)
//! @param rank        rank of the thread among the threads of its warp on the same side
//! @param heads       number of head threads in the block
[[nodiscard]] constexpr MICROSCHED_HD unsigned hot_slot(bool head, unsigned ticket, unsigned rank,
                                                        unsigned heads) {
  return head ? hot_ticket_heads(ticket) + rank : heads + hot_ticket_tails(ticket) + rank;
}

// ------------------------------------------------------------------------------------------------
// Data Group Indexing (DGI, lin2018 Algorithm 2)
// ------------------------------------------------------------------------------------------------

//! Shape of the DGI sub-count storage. A neighbourhood is `neighbouring` consecutive threads
//! (N in the paper). Each (path, piece) word holds the membership bits of up to 32 threads: a
//! piece is min(N, 32) threads, never crossing a warp, so one lane writes it from a ballot
//! (no atomics, no zeroing). popcount of a word is the paper's sub-count; a neighbourhood of
//! N = 64 spans two words. Words of one path are consecutive, as in the paper's layout.
struct dgi_shape {
  unsigned block_threads;
  unsigned paths;
  unsigned neighbouring;

  //! Threads per word: min(N, 32).
  [[nodiscard]] constexpr MICROSCHED_HD unsigned piece_threads() const {
    return neighbouring < warp_size ? neighbouring : warp_size;
  }
  //! Words per path: ceil(block_threads / piece_threads).
  [[nodiscard]] constexpr MICROSCHED_HD unsigned pieces() const {
    return (block_threads + piece_threads() - 1) / piece_threads();
  }
  //! Words per neighbourhood: 1 for N <= 32, N / 32 above.
  [[nodiscard]] constexpr MICROSCHED_HD unsigned words_per_neighbourhood() const {
    return neighbouring / piece_threads();
  }
  [[nodiscard]] constexpr MICROSCHED_HD unsigned neighbourhoods() const {
    return (pieces() + words_per_neighbourhood() - 1) / words_per_neighbourhood();
  }
  //! Shared-memory bytes of the sub-count words (4 bytes per path and piece).
  [[nodiscard]] constexpr MICROSCHED_HD std::size_t shared_bytes() const {
    return std::size_t{paths} * pieces() * sizeof(unsigned);
  }
  //! True when N is one of 4, 8, 16, 32, 64 (a power of two that tiles warps).
  [[nodiscard]] constexpr MICROSCHED_HD bool valid_neighbouring() const {
    return neighbouring >= 4 && neighbouring <= 64 && (neighbouring & (neighbouring - 1)) == 0;
  }
};

//! The word lane `lane` stores for its piece, from the warp's ballot of one path: the piece's
//! bits shifted down to bit 0. Only the first lane of each piece (lane % piece_threads == 0)
//! stores.
[[nodiscard]] constexpr MICROSCHED_HD unsigned dgi_piece_word(unsigned ballot, unsigned lane,
                                                              unsigned piece_threads) {
  const unsigned bits = piece_threads == warp_size ? full_mask : (1u << piece_threads) - 1u;
  return (ballot >> lane) & bits;
}

//! Target group and rank of the thread with native id `native` (lin2018 eq. 1): threads
//! [0, n_0) take path 0, [n_0, n_0 + n_1) path 1, and so on. `totals` holds n_p for p < paths.
struct dgi_target {
  unsigned path;
  unsigned rank;
};
[[nodiscard]] MICROSCHED_HD dgi_target dgi_target_of(const unsigned* totals, unsigned paths,
                                                     unsigned native) {
  dgi_target target{0, native};
  unsigned start = 0;
  for (unsigned p = 0; p + 1 < paths; ++p) {
    start += totals[p];
    if (native >= start) target = {p + 1, native - start};  // starts grow with p
  }
  return target;
}

//! Native id of the `rank`-th thread (0-based, in id order) whose original path is the one whose
//! words are `path_words` (`shape.pieces()` words). Walks neighbourhood sub-counts until the
//! running sum passes `rank`, then searches that neighbourhood only (lin2018 Algorithm 2,
//! lines 19-32). `rank` must be below the path's total.
[[nodiscard]] MICROSCHED_HD unsigned dgi_locate(const unsigned* path_words, dgi_shape shape,
                                                unsigned rank) {
  const unsigned pieces = shape.pieces();
  const unsigned per_hood = shape.words_per_neighbourhood();
  unsigned mark = 0;   // members of this path in the neighbourhoods skipped so far
  unsigned first = 0;  // first word of the current neighbourhood
  for (;; first += per_hood) {
    unsigned count = 0;
    for (unsigned w = 0; w < per_hood && first + w < pieces; ++w) {
      count += static_cast<unsigned>(popcount(path_words[first + w]));
    }
    if (rank < mark + count) break;
    mark += count;
  }
  unsigned left = rank - mark;  // rank inside the neighbourhood
  unsigned word = first;
  for (;; ++word) {
    const unsigned count = static_cast<unsigned>(popcount(path_words[word]));
    if (left < count) break;
    left -= count;
  }
  return word * shape.piece_threads() + nth_set_bit(path_words[word], left);
}

}  // namespace microsched::remap
