#pragma once
//! @file switching_kernel.cuh
//! The context-switching driver (frey2012 §3 combined with §4's task pools): each lane holds one
//! task context; each loop visit refills empty lanes from the task source and runs one step,
//! whose managed branches vote and switch through the warp's context pool. Finished contexts are
//! ended and discarded; the warp leaves when the task source and the pool are empty and no lane
//! holds a context. With tail sharing (switching_arguments::share_parked > 0), once the task
//! source is exhausted, the warps of a block (or of an SM, share_sm) also move parked contexts
//! to idle siblings (tail_share.cuh), and a warp leaves only when no sibling has contexts to
//! give. Neither it nor the divergent tail shortened the ray caster's tail on an H100
//! (docs/results-switching.md, 2026-11-22, third session): both are off by default.

#include "microsched/driver/driver_params.hpp"
#include "microsched/driver/persistent_kernel.cuh"
#include "microsched/schedule/pool_strategy.hpp"
#include "microsched/switching/context_pool.cuh"
#include "microsched/switching/managed_program.hpp"
#include "microsched/switching/switching_gate.cuh"
#include "microsched/switching/switching_params.hpp"
#include "microsched/switching/tail_share.cuh"

namespace microsched::switching {

template <class Program, int ContextsPerWarp, bool Fifo = false>
using pool_for =
    context_pool<typename Program::context, ContextsPerWarp, Program::managed_branches, Fifo>;

//! Launch with dynamic shared memory of pool_shared_bytes(sizeof(pool temp_storage),
//! BlockThreads): one pool per warp. MinBlocksPerSM > 0 caps the registers so that that many
//! blocks fit on an SM (__launch_bounds__'s second argument; 0 = no cap). Tail: compiled with
//! the tail code (switching_arguments::tail_code(): sharing, tail mode); without it none of it
//! is in the kernel (it cost the loop 2-4% in registers and code when compiled in but off).
//! Fifo: the pools' lists are rings (switching_arguments::fifo; the kernel does not read
//! args.fifo: as a run-time check it cost the Monte Carlo branch test 2% at p = 0.01).
//! `tail_params`: the tail sharing queues when args.share_parked > 0 (one per block, or per SM
//! group with args.share_sm), else unused.
template <class Program, int BlockThreads, int ContextsPerWarp, pool_strategy Strategy,
          int MinBlocksPerSM = 0, bool Tail = false, bool Fifo = false>
__global__ void __launch_bounds__(BlockThreads, (MinBlocksPerSM > 0 ? MinBlocksPerSM : 1))
    switching_kernel(const Program program, const driver_params params,
                     const switching_arguments args,
                     const tail_share_params<task_context<typename Program::context>> tail_params) {
  static_assert(BlockThreads % warp_size == 0, "BlockThreads must be a multiple of 32");
  using pool_type = pool_for<Program, ContextsPerWarp, Fifo>;
  using gate_type = switching_gate<typename Program::context, ContextsPerWarp,
                                   Program::managed_branches, Tail, Fifo>;
  __shared__ typename microsched::detail::task_source_t<Strategy>::temp_storage source_storage;
  extern __shared__ __align__(16) unsigned char switching_shared[];
  const unsigned lane = threadIdx.x % warp_size;
  const unsigned warp = threadIdx.x / warp_size;

  auto source = microsched::detail::make_source<Strategy>(source_storage, params);
  auto* pools = reinterpret_cast<typename pool_type::temp_storage*>(switching_shared);
  pool_type pool(pools[warp], lane);
  typename pool_type::slot mine{};  // state_finished: the lane starts empty
  gate_type gate(pool, mine, args, lane);
  using tail_type =
      tail_share<typename Program::context, ContextsPerWarp, Program::managed_branches, Fifo>;
  __shared__ typename tail_type::temp_storage tail_storage;
  // Uniform over the grid (so the barrier is safe); constant false without the tail code.
  const bool sharing = Tail && args.share_parked > 0;
  if (sharing) {
    if (threadIdx.x == 0) tail_type::init(tail_storage);
    __syncthreads();
  }
  const std::size_t group = !sharing        ? 0
                            : args.share_sm ? sm_id() % static_cast<unsigned>(tail_params.groups)
                                            : blockIdx.x;
  tail_type tail(
      args.share_sm ? tail_params.control + group * tail_control_words : tail_storage.control,
      tail_params.queue + group * tail_queue_capacity, args.share_parked, lane);

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
    if constexpr (Tail) {
      if (sharing && source.exhausted()) {
        tail.exchange(pool, mine, __ballot_sync(full_mask, mine.state == state_finished));
      }
      gate.set_tail(args.tail_divergent && source.exhausted());
    }
    if (!__any_sync(full_mask, mine.state != state_finished) && pool.empty() &&
        source.exhausted()) {
      if (!sharing || tail.may_leave()) break;
      continue;  // a sibling may still give contexts, or the queue holds some
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
