#pragma once
//! @file persistent_kernel.cuh
//! The persistent driver: every lane holds one task context; the warp steps its tasks `deferral`
//! steps at a time with no ballot in between (each lane stops at its task's end), checks how many lanes went idle, and leaves the
//! compute loop only when the fetch control says so. Then finished lanes end their task and the
//! idle lanes take new ones from the task source, all at once. The per-step cost is the step
//! itself plus a predicate; the ballot, the pool and the atomics are paid once per check or
//! refill, never per step.

#include <type_traits>

#include "microsched/driver/atomic_idle_counter.cuh"
#include "microsched/driver/driver_params.hpp"
#include "microsched/driver/global_task_source.cuh"
#include "microsched/driver/hybrid_task_source.cuh"
#include "microsched/driver/local_task_source.cuh"
#include "microsched/fetch/fetch_control.hpp"
#include "microsched/schedule/pool_strategy.hpp"
#include "microsched/task_program.hpp"

namespace microsched {

namespace detail {
template <pool_strategy Strategy>
using task_source_t = std::conditional_t<
    Strategy == pool_strategy::local, local_task_source,
    std::conditional_t<Strategy == pool_strategy::global, global_task_source, hybrid_task_source>>;

template <pool_strategy Strategy, int BlockThreads>
struct driver_storage {
  typename task_source_t<Strategy>::temp_storage source;
  typename atomic_idle_counter<BlockThreads / warp_size>::temp_storage idle;
};

//! Runs up to `steps` steps of one lane's task; true if it finished. Lanes leave the loop on
//! their own, as in a vanilla kernel, so the warp reconverges once per window, not per step; the
//! unrolled body tests the window counter once per eight steps. Measured on an H100 (Julia
//! offset 2, where there is no divergence to remove): unrolled by 8, 0.79x vanilla; by 4, 0.76x;
//! by 2, 0.68x; one exit flag instead of early returns, 0.78x; `do step while (!done && --left)`,
//! 0.72x. Vanilla's loop is 10 instructions per step; the window adds about 2.
template <class Program>
__device__ __forceinline__ bool step_window(const Program& program,
                                            typename Program::context& context, int steps) {
  if constexpr (has_advance<Program>) {
    return program.advance(context, steps);  // the program folds the window into its own test
  }
  constexpr int unroll = 8;
  for (int s = steps % unroll; s > 0; --s) {
    if (program.step(context)) return true;
  }
  for (int block = steps / unroll; block > 0; --block) {
#pragma unroll
    for (int k = 0; k < unroll; ++k) {
      if (program.step(context)) return true;
    }
  }
  return false;
}

//! Whether the driver keeps each lane's 64-bit task id in shared memory (one slot per thread)
//! instead of registers while the warp computes. The id is live across the whole compute loop but
//! used only at refill and end; with a large context it is register pressure in the loop. Measured
//! on an H100 (Julia, hybrid, offset 2, where there is nothing to win and only the loop's code
//! counts): double (24-byte context) 0.89x vanilla with the id in registers, 0.97x in shared
//! memory, and offset 0 1.72x -> 1.81x; float (12 bytes) 0.98x in registers, 0.94x in shared
//! memory. The difference is code generation: with less pressure the compiler keeps the
//! program's parameters in uniform registers inside the loop, as vanilla's loop does.
template <class Context>
inline constexpr bool task_id_in_shared_memory = sizeof(Context) > 16;

template <pool_strategy Strategy>
__device__ __forceinline__ task_source_t<Strategy> make_source(
    typename task_source_t<Strategy>::temp_storage& storage, const driver_params& params) {
  if constexpr (Strategy == pool_strategy::local) {
    return {storage, params, static_cast<task_id>(blockIdx.x), threadIdx.x == 0};
  } else {
    return {storage, params};
  }
}
}  // namespace detail

template <task_program Program, int BlockThreads, pool_strategy Strategy>
__global__ void __launch_bounds__(BlockThreads)
    persistent_kernel(const Program program, const driver_params params) {
  static_assert(BlockThreads % warp_size == 0, "BlockThreads must be a multiple of 32");
  __shared__ detail::driver_storage<Strategy, BlockThreads> storage;
  const unsigned lane = threadIdx.x % warp_size;
  const unsigned warp = threadIdx.x / warp_size;

  auto source = detail::make_source<Strategy>(storage.source, params);
  atomic_idle_counter<BlockThreads / warp_size> idle_counter(storage.idle, warp, lane);

  typename Program::context context{};
  constexpr bool shared_id = detail::task_id_in_shared_memory<typename Program::context>;
  __shared__ task_id shared_ids[shared_id ? BlockThreads : 1];
  task_id register_id = 0;
  task_id& task = shared_id ? shared_ids[threadIdx.x] : register_id;
  task = 0;
  bool live = false;  // this lane holds a task (running or finished, not yet ended)
  for (;;) {
    // Refill: every idle lane at once, one collective call.
    const unsigned idle = __ballot_sync(full_mask, !live);
    if (idle != 0 && !source.exhausted()) {
      task_id fresh = 0;
      if (source.acquire(idle, lane, fresh)) {
        task = fresh;
        context = program.begin(fresh);
        live = true;
      }
    }
    if (!__any_sync(full_mask, live)) break;
    const bool drained = source.exhausted();  // then refills cannot help: wait for all lanes

    // Compute: `deferral` steps between checks; a finished lane idles until the warp leaves.
    bool running = live;
    for (;;) {
      if (running) running = !detail::step_window(program, context, params.deferral);
      const int idle_lanes = params.atomic_count
                                 ? idle_counter.count(!running)
                                 : popcount(__ballot_sync(full_mask, !running));
      if (should_leave(idle_lanes, params.idle_threshold, drained)) break;
    }
    if (params.atomic_count) idle_counter.reset();

    if (live && !running) {
      program.end(task, context);
      live = false;
    }
  }
}

}  // namespace microsched
