#pragma once
//! @file switching_kernel.cuh
//! The context-switching driver (frey2012 §3 combined with §4's task pools): each lane holds one
//! task context; each loop visit refills empty lanes from the task source and runs one step,
//! whose managed branches vote and switch through the warp's context pool. Finished contexts are
//! ended and discarded; the warp leaves when the task source and the pool are empty and no lane
//! holds a context.

#include "microsched/driver/driver_params.hpp"
#include "microsched/driver/persistent_kernel.cuh"
#include "microsched/schedule/pool_strategy.hpp"
#include "microsched/switching/context_pool.cuh"
#include "microsched/switching/managed_program.hpp"
#include "microsched/switching/switching_gate.cuh"
#include "microsched/switching/switching_params.hpp"

namespace microsched::switching {

template <class Program, int ContextsPerWarp>
using pool_for = context_pool<typename Program::context, ContextsPerWarp, Program::managed_branches>;

//! Launch with dynamic shared memory of pool_shared_bytes(sizeof(pool temp_storage),
//! BlockThreads): one pool per warp. MinBlocksPerSM > 0 caps the registers so that that many
//! blocks fit on an SM (__launch_bounds__'s second argument; 0 = no cap).
template <class Program, int BlockThreads, int ContextsPerWarp, pool_strategy Strategy,
          int MinBlocksPerSM = 0>
__global__ void __launch_bounds__(BlockThreads, (MinBlocksPerSM > 0 ? MinBlocksPerSM : 1))
    switching_kernel(const Program program, const driver_params params,
                     const switching_arguments args) {
  static_assert(BlockThreads % warp_size == 0, "BlockThreads must be a multiple of 32");
  using pool_type = pool_for<Program, ContextsPerWarp>;
  using gate_type = switching_gate<typename Program::context, ContextsPerWarp,
                                   Program::managed_branches>;
  __shared__ typename microsched::detail::task_source_t<Strategy>::temp_storage source_storage;
  extern __shared__ __align__(16) unsigned char switching_shared[];
  const unsigned lane = threadIdx.x % warp_size;
  const unsigned warp = threadIdx.x / warp_size;

  auto source = microsched::detail::make_source<Strategy>(source_storage, params);
  auto* pools = reinterpret_cast<typename pool_type::temp_storage*>(switching_shared);
  pool_type pool(pools[warp], lane);
  typename pool_type::slot mine{};  // state_finished: the lane starts empty
  gate_type gate(pool, mine, args, lane);

  for (;;) {
    const unsigned empty = __ballot_sync(full_mask, mine.state == state_finished);
    if (empty != 0 && !source.exhausted()) {
      task_id fresh = 0;
      if (source.acquire(empty, lane, fresh)) {
        mine.user = program.begin(fresh);
        mine.task = fresh;
        mine.state = state_active;
      }
    }
    if (!__any_sync(full_mask, mine.state != state_finished) && pool.empty() &&
        source.exhausted()) {
      break;
    }
    // A window of visits between refills: with deferred switching, contexts leave lanes only at
    // the vote that ends each window, so refilling once per window costs no lane time there.
    // Not unrolled: the step inlines every path of the program once, and copies of it would
    // crowd the instruction cache.
#pragma unroll 1
    for (int visit = 0; visit < args.switch_every; ++visit) {
      const bool finished = program.step(mine.user, gate);
      if (mine.state == state_active && finished) {
        program.end(mine.task, mine.user);
        mine.state = state_finished;
      }
    }
  }
}

}  // namespace microsched::switching
