// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file remapped_loop.cuh
//! The remapped strategy: the in-kernel remap of lin2018 between task fetches, a
//! block-synchronous mode of the persistent driver. Each round the block takes one task per
//! thread from the global pool with one atomic, asks the program which path each task takes
//! (routed_task_program), regroups the tasks by path with Head-or-Tail (two paths) or Data Group
//! Indexing (more), and every thread runs the task it was given to its end. Whole warps then
//! take one path, except the few warps a border between paths falls in; the block waits for its
//! slowest warp at the end of each round, as a vanilla block does.

#include <type_traits>

#include "microsched/config.hpp"
#include "microsched/driver/driver_params.hpp"
#include "microsched/remap/data_group_index.hpp"
#include "microsched/remap/head_or_tail.hpp"
#include "microsched/task_program.hpp"

namespace microsched::detail {

//! HoT for two paths, DGI (neighbouring factor 16, the paper's default) for more.
template <class Program, int BlockThreads>
using block_remap_t =
    std::conditional_t<Program::paths == 2, remap::block_head_or_tail<BlockThreads>,
                       remap::block_data_group_index<BlockThreads, Program::paths>>;

template <class Program, int BlockThreads>
__device__ __forceinline__ void remapped_loop(const Program& program, const driver_params& params) {
  using remapper = block_remap_t<Program, BlockThreads>;
  __shared__ typename remapper::temp_storage storage;
  __shared__ unsigned long long round_base;
  const task_id total = params.pool.total;
  for (;;) {
    if (threadIdx.x == 0) round_base = atomicAdd(params.pool.counter, BlockThreads);
    __syncthreads();  // publishes round_base; the previous round's storage is free again
    const task_id base = round_base;
    if (base >= total) return;  // block-uniform
    const task_id mine = base + threadIdx.x;
    // A slot past the end takes path 0 and, after the remap, leaves its thread idle.
    const unsigned path = mine < total ? program.path(mine) : 0u;
    remapper regroup(storage, threadIdx.x);
    unsigned slot = threadIdx.x;
    if constexpr (Program::paths == 2) {
      slot = regroup.remap(path == 1).id;
    } else {
      slot = regroup.remap(path).id;
    }
    const task_id task = base + slot;
    if (task < total) {
      auto context = program.begin(task);
      while (!program.step(context)) {
      }
      program.end(task, context);
    }
    __syncthreads();  // every thread has read round_base and the remap's storage
  }
}

}  // namespace microsched::detail
