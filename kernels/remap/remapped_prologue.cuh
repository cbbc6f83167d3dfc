// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file remapped_prologue.cuh
//! The few lines every remapped kernel of this folder runs before its branch: publish the
//! private state, remap on the path, fetch the state of the data taken over. Shared so that the
//! kernels differ from their originals in this call only.

#include <cstdint>

#include "microsched/remap/data_group_index.hpp"
#include "microsched/remap/head_or_tail.hpp"
#include "microsched/remap/state_exchange.hpp"
#include "remap/remap_variant.hpp"

namespace microsched::remap_kernels {

//! The remap primitive of a variant: HoT for two paths (32- or 16-bit pool), DGI otherwise.
template <remap_variant Variant, int BlockThreads, int Paths, int Neighbouring>
struct remapper_of {
  using type = remap::block_data_group_index<BlockThreads, Paths, Neighbouring>;
};
template <int BlockThreads, int Paths, int Neighbouring>
struct remapper_of<remap_variant::head_or_tail, BlockThreads, Paths, Neighbouring> {
  static_assert(Paths == 2, "Head-or-Tail remaps two-path branches only");
  using type = remap::block_head_or_tail<BlockThreads, std::uint32_t>;
};
template <int BlockThreads, int Paths, int Neighbouring>
struct remapper_of<remap_variant::head_or_tail16, BlockThreads, Paths, Neighbouring> {
  static_assert(Paths == 2, "Head-or-Tail remaps two-path branches only");
  using type = remap::block_head_or_tail<BlockThreads, std::uint16_t>;
};

//! Shared memory of a remapped kernel: the remap and the state in flight are live together.
template <remap_variant Variant, int BlockThreads, int Paths, int Neighbouring, class State>
struct remap_site {
  using remapper = typename remapper_of<Variant, BlockThreads, Paths, Neighbouring>::type;
  using carrier = remap::block_state_exchange<BlockThreads, State>;
  struct temp_storage {
    typename remapper::temp_storage remap;
    typename carrier::temp_storage state;
  };
  static constexpr std::size_t shared_bytes = sizeof(temp_storage);

  //! Remaps this thread's (path, state) pair; returns the native id taken over and updates
  //! path and state to that data's.
  static __device__ __forceinline__ unsigned run(temp_storage& storage, unsigned tid,
                                                 unsigned& path, State& state) {
    carrier exchange(storage.state, tid);
    exchange.publish(state);
    remapper remap(storage.remap, tid);
    unsigned id = tid;
    if constexpr (Variant == remap_variant::data_group_index) {
      const auto r = remap.remap(path);
      id = r.id;
      path = r.path;
    } else {
      const auto r = remap.remap(path == 1);
      id = r.id;
      path = r.cond ? 1u : 0u;
    }
    state = exchange.fetch(id);  // ordered by the remap's barrier
    return id;
  }
};

}  // namespace microsched::remap_kernels
