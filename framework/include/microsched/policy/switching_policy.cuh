// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file switching_policy.cuh
//! The policy for managed-branch programs (switching/managed_program.hpp): task-context
//! switching (frey2012 §3) on top of the driver's task pools. Each lane holds one task context;
//! a step visit runs the program's step, whose managed branches vote and swap contexts through
//! the warp's context pool in shared memory. Finished contexts end inside the visit and leave
//! their lane empty; the driver refills empty lanes from the task source. The warp is done when
//! the source and the pool are empty and no lane holds a context.

#include <cstddef>

#include "microsched/config.hpp"
#include "microsched/schedule/schedule_arguments.hpp"
#include "microsched/schedule/switching_arguments.hpp"
#include "microsched/switching/context_pool.cuh"
#include "microsched/switching/managed_program.hpp"
#include "microsched/switching/pool_fit.hpp"
#include "microsched/switching/switching_gate.cuh"

namespace microsched {

namespace detail {

//! One lane's state under switching_policy (the driver's lane interface). The pools are dynamic
//! shared memory, one per warp.
template <class Program, int ContextsPerWarp, bool Fifo>
class switching_lane {
  using pool_type = switching::context_pool<typename Program::context, ContextsPerWarp,
                                            Program::managed_branches, Fifo>;
  using gate_type = switching::switching_gate<typename Program::context, ContextsPerWarp,
                                              Program::managed_branches, Fifo>;
  using slot = typename pool_type::slot;

 public:
  struct temp_storage {};

  __device__ __forceinline__ switching_lane(temp_storage&, const switching_arguments& args,
                                            unsigned char* dynamic_shared, unsigned warp,
                                            unsigned lane)
      : gate_(reinterpret_cast<typename pool_type::temp_storage*>(dynamic_shared)[warp], args,
              lane) {}

  [[nodiscard]] __device__ __forceinline__ bool empty() const {
    return gate_.mine().state == switching::state_finished;
  }

  __device__ __forceinline__ void begin(const Program& program, task_id task) {
    slot& mine = gate_.mine();
    mine.user = program.begin(task);
    mine.task = task;
    mine.state = switching::state_active;
  }

  //! Warp-collective, after a refill: no lane holds a context and none is parked.
  [[nodiscard]] __device__ __forceinline__ bool done(bool source_exhausted) const {
    return !__any_sync(full_mask, gate_.mine().state != switching::state_finished) &&
           gate_.pool().empty() && source_exhausted;
  }

  //! Runs `visits` step visits (every lane of the warp together: take() is collective); a
  //! context that finishes ends at once. True when this lane is empty afterwards.
  __device__ __forceinline__ bool compute(const Program& program, int visits) {
    // Not unrolled: the step inlines every path of the program once, and copies of it would
    // crowd the instruction cache.
#pragma unroll 1
    for (int visit = 0; visit < visits; ++visit) {
      slot& mine = gate_.mine();
      const bool finished = program.step(mine.user, gate_);
      if (mine.state == switching::state_active && finished) {
        program.end(mine.task, mine.user);
        mine.state = switching::state_finished;
      }
    }
    return empty();
  }

  __device__ __forceinline__ void end_finished(const Program&) {}  // ended inside compute()

 private:
  gate_type gate_;  // owns the warp's pool view and the lane's attached context
};

}  // namespace detail

//! Managed-branch programs: termination divergence removed by refilling lanes, branch
//! divergence by task-context switching at the managed branches.
//! @tparam BlockThreads threads per block (a multiple of 32 in 32..1024)
//! @tparam ContextsPerWarp detached contexts per warp's pool (1..255; frey2012 found 64..160)
//! @tparam MinBlocksPerSM register cap: compile the kernel so that this many blocks fit an SM's
//!   register file (__launch_bounds__; 0 = no cap). Local-memory spills show in plan().resources.
template <int BlockThreads = 128, int ContextsPerWarp = 64, int MinBlocksPerSM = 0>
struct switching_policy {
  static_assert(BlockThreads % warp_size == 0 && BlockThreads >= warp_size && BlockThreads <= 1024,
                "BlockThreads must be a multiple of 32 in 32..1024");
  static_assert(MinBlocksPerSM >= 0 && MinBlocksPerSM <= 32, "MinBlocksPerSM must be in 0..32");
  static constexpr int block_threads = BlockThreads;
  static constexpr int contexts_per_warp = ContextsPerWarp;
  //! Always compiled with a minimum of blocks per SM in the launch bounds (1 without a cap).
  static constexpr bool register_cap = true;
  static constexpr int min_blocks_per_sm = MinBlocksPerSM > 0 ? MinBlocksPerSM : 1;
  using params = switching_arguments;
  //! blocks_per_sm = 0 (and the automatic schedule's pool candidate): 16 warps per SM, or more
  //! where a lane would otherwise hold more than 8 tasks (what fits, at most). Fewer resident
  //! warps give each warp's pool more tasks to choose contexts from; with many tasks per lane
  //! more warps pay (docs/decisions.md, "The switching grid").
  static constexpr int auto_blocks_per_sm = 512 / BlockThreads > 0 ? 512 / BlockThreads : 1;
  [[nodiscard]] static int auto_blocks(task_id num_tasks, int sm_count) {
    return auto_blocks_for_tasks(num_tasks, sm_count, BlockThreads, auto_blocks_per_sm, 8);
  }
  //! Runs managed-branch programs and parks contexts (stacks or rings: switching_arguments::fifo).
  static constexpr bool switches_contexts = true;
  //! Refills line up with the votes: one fetch check per vote.
  [[nodiscard]] static constexpr int default_deferral(const switching_arguments& args) {
    return args.switch_every;
  }

  template <class Program, class Variant>
  using lane = detail::switching_lane<Program, ContextsPerWarp, Variant::fifo>;
  //! Shared memory per block (one context pool per warp), known at compile time.
  template <class Program>
  static constexpr std::size_t dynamic_shared_bytes = switching::pool_shared_bytes(
      sizeof(typename switching::context_pool<typename Program::context, ContextsPerWarp,
                                              Program::managed_branches>::temp_storage),
      BlockThreads);
};

}  // namespace microsched
