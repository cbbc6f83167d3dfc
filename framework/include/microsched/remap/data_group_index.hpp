// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file data_group_index.hpp
//! Data Group Indexing (DGI, lin2018 §3.3): block-level reference redirection for a branch with
//! P paths (a switch, or nested if-else levels folded into one path number). Afterwards threads
//! [0, n_0) run path 0, [n_0, n_0 + n_1) path 1, ..., each group in original id order (stable
//! remapping), so at most P - 1 warps of the block stay mixed.

#include <cstddef>

#include "microsched/config.hpp"
#include "microsched/lane/lane_mask.hpp"
#include "microsched/remap/permutation.hpp"

namespace microsched::remap {

//! Block-wide DGI remap (the temp_storage idiom of CUB).
//!
//! Counting phase: one ballot per path; the first lane of each piece of min(N, 32) threads
//! stores the piece's membership bits (popcount = the paper's neighbourhood sub-count). No
//! atomics and no zeroing, so one block barrier is the whole synchronisation. Remapping phase:
//! each warp sums the per-path totals cooperatively (one reduction per path), a thread finds its
//! target path and rank from its native id, walks the neighbourhood sub-counts of that path and
//! searches one neighbourhood. A block whose threads all take one path is detected from the
//! totals and left untouched.
//!
//! Every thread of the block must call remap() in a block of exactly BlockThreads threads (any
//! count from 1 to 1024). Before the temp_storage is reused the block must pass a __syncthreads().
//! Needs sm_80 or newer (__reduce_add_sync).
//!
//! @tparam BlockThreads threads per block
//! @tparam Paths        number of paths P (2 to 32)
//! @tparam Neighbouring neighbouring factor N: 4, 8, 16, 32 or 64 (the paper's default 16)
template <int BlockThreads, int Paths, int Neighbouring = 16>
class block_data_group_index {
  static_assert(BlockThreads >= 1 && BlockThreads <= 1024,
                "block_data_group_index: BlockThreads must be in 1..1024 (one CUDA block)");
  static_assert(Paths >= 2 && Paths <= 32, "block_data_group_index: Paths must be in 2..32");
  static_assert(Neighbouring >= 4 && Neighbouring <= 64 && (Neighbouring & (Neighbouring - 1)) == 0,
                "block_data_group_index: Neighbouring (N) must be 4, 8, 16, 32 or 64");

 public:
  static constexpr dgi_shape shape{BlockThreads, Paths, Neighbouring};

  //! Shared memory: (path, piece) membership words.
  struct temp_storage {
    unsigned words[Paths][shape.pieces()];  // (path, piece) -> bits of the piece's threads
  };
  //! Shared-memory cost, known at compile time: 4 * P * ceil(S / min(N, 32)) bytes.
  static constexpr std::size_t shared_bytes = sizeof(temp_storage);
  static_assert(shared_bytes == shape.shared_bytes(), "DGI storage layout mismatch");

  struct result {
    unsigned id;    //!< native id (in the block) of the data this thread now processes
    unsigned path;  //!< that data's path (no re-evaluation needed)
    bool remapped;  //!< false when the whole block took one path and nothing moved
  };

  //! @param storage    shared memory, the same object for the whole block
  //! @param linear_tid this thread's rank in the block
  MICROSCHED_DEVICE block_data_group_index(temp_storage& storage, unsigned linear_tid)
      : storage_(storage), tid_(linear_tid) {}

  //! Remaps the block on a path number in [0, Paths). Returns the id this thread continues with.
  [[nodiscard]] MICROSCHED_DEVICE result remap(unsigned path) {
#if defined(__CUDA_ARCH__)
    constexpr unsigned piece = shape.piece_threads();
    const unsigned warp = tid_ / warp_size;
    const unsigned lane = tid_ % warp_size;
    const unsigned lanes = warp_lanes(BlockThreads, warp);

    // Counting phase: (path, piece) words from ballots.
#pragma unroll
    for (unsigned p = 0; p < Paths; ++p) {
      const unsigned ballot = __ballot_sync(lanes, path == p);
      if (lane % piece == 0) storage_.words[p][tid_ / piece] = dgi_piece_word(ballot, lane, piece);
    }
    __syncthreads();

    // Per-path totals, summed by the lanes of each warp together.
    unsigned totals[Paths];
    bool uniform = false;
#pragma unroll
    for (unsigned p = 0; p < Paths; ++p) {
      unsigned count = 0;
      for (unsigned q = lane; q < shape.pieces(); q += warp_size) {
        count += static_cast<unsigned>(popcount(storage_.words[p][q]));
      }
      totals[p] = __reduce_add_sync(lanes, count);
      uniform = uniform || totals[p] == BlockThreads;
    }
    if (uniform) return {tid_, path, false};

    const dgi_target target = dgi_target_of(totals, Paths, tid_);
    return {dgi_locate(storage_.words[target.path], shape, target.rank), target.path, true};
#else
    return {tid_, path, false};
#endif
  }

 private:
  temp_storage& storage_;
  unsigned tid_;
};

}  // namespace microsched::remap
