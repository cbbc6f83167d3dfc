// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file budgeted_kernel.cuh
//! The budgeted strategy's two launches. The direct pass runs one thread per task, as a vanilla
//! kernel does, but for at most `budget` steps; a task still running then is saved, compacted,
//! to the survivor queue. The persistent driver then resumes the survivors through
//! resumed_program, with private pools (the global strategy). Most tasks of a short-task kernel end
//! in the direct pass at vanilla's cost per task; the warps that hold a long task do not wait
//! for it, and the long tasks run together in full warps.

#include <cooperative_groups.h>

#include <cstdint>

#include "microsched/config.hpp"
#include "microsched/policy/step_window.cuh"
#include "microsched/pool/survivor_queue.cuh"
#include "microsched/task_program.hpp"

namespace microsched {

//! The survivors as a task program: task s is queue entry s. Its context is the whole entry, the
//! saved context with the original id, read in one load by begin(), so that end() does not read
//! the queue a second time on the refill path, where the whole warp waits for it. On an H100,
//! alternating builds of `julia --strategy budgeted --chunk 1 --budget B --blocks-per-sm 4` at
//! 2048^2 (B 48 and 64, two passes each): dust float 0.128-0.129 against 0.130-0.133 ms, neck
//! float 0.060-0.061 against 0.062-0.063, seahorse double 0.104-0.106 against 0.106-0.107; on one
//! block per SM and at 4096^2 within the spread of single readings, 3% either way. Their number is
//! known only on the device, once the direct pass is over: the persistent driver reads it with
//! tasks_on_device().
template <class Program>
struct resumed_program {
  using context = survivor_entry<typename Program::context>;
  Program inner;
  survivor_queue_ref<typename Program::context> queue;

  //! The survivors saved, at most the queue's capacity and `launched` (the launch's bound).
  [[nodiscard]] __device__ __forceinline__ task_id tasks_on_device(task_id launched) const {
    const unsigned long long saved = *queue.count;
    const unsigned long long held = saved < queue.capacity ? saved : queue.capacity;
    return held < launched ? held : launched;
  }

  __device__ __forceinline__ context begin(task_id slot) const { return queue.entries[slot]; }
  __device__ __forceinline__ bool step(context& c) const { return inner.step(c.context); }
  __device__ __forceinline__ void end(task_id, const context& c) const {
    inner.end(c.task, c.context);
  }
  __device__ __forceinline__ bool advance(context& c,
                                          int budget) const requires has_advance<Program> {
    return inner.advance(c.context, budget);
  }
};

//! The direct pass, grid-stride over [0, num_tasks). A survivor takes a queue slot with one
//! atomic per group of survivors that reach the save together; one that finds the queue full
//! runs on to its end here. Its grid covers the tasks, one thread each, as a vanilla kernel's
//! does: the hardware hands out blocks more cheaply than warps claim work. On an H100 at budget
//! 48 (`julia --strategy budgeted --chunk 1 --budget 48`, the pass's grid changed), a resident
//! grid of 8 blocks of 256 per SM, each thread striding, takes 0.068-0.070 ms on neck 2048^2
//! float against 0.063-0.064 and 0.215 on neck 4096^2 double against 0.185-0.186 (dust 2048^2
//! double 0.173 against 0.175); warps that claim 32 or 64 tasks at a time from an atomic counter
//! take 0.102-0.150 ms on neck 2048^2 float.
template <class Program, int BlockThreads, class Index>
__global__ void __launch_bounds__(BlockThreads)
    budgeted_pass(const Program program, const task_id num_tasks, const int budget,
                  const survivor_queue_ref<typename Program::context> queue) {
  namespace cg = cooperative_groups;
  if (blockIdx.x == 0 && threadIdx.x == 0) *queue.next_count = 0;  // for the run after this one
  const auto count = static_cast<Index>(num_tasks);
  const auto stride = static_cast<Index>(gridDim.x) * BlockThreads;
  for (Index t = static_cast<Index>(blockIdx.x) * BlockThreads + threadIdx.x; t < count;
       t += stride) {
    auto context = program.begin(t);
    if (!detail::step_window(program, context, budget)) {
      const cg::coalesced_group survivors = cg::coalesced_threads();
      unsigned long long base = 0;
      if (survivors.thread_rank() == 0) {
        base = atomicAdd(queue.count, static_cast<unsigned long long>(survivors.size()));
      }
      const unsigned long long slot = survivors.shfl(base, 0) + survivors.thread_rank();
      if (slot < queue.capacity) {
        queue.entries[slot] = {context, static_cast<task_id>(t)};
        continue;
      }
      while (!program.step(context)) {
      }
    }
    program.end(t, context);
  }
}

}  // namespace microsched
