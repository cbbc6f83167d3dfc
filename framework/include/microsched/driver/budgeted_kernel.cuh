// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file budgeted_kernel.cuh
//! The budgeted strategy's two launches. The direct pass runs one thread per task, as a vanilla
//! kernel does, but for at most `budget` steps; a task still running then is saved, compacted,
//! to the survivor queue. The persistent driver then resumes the survivors through
//! resumed_program, with private pools (the private_pools strategy). Most tasks of a short-task
//! kernel end in the direct pass at vanilla's cost per task; the warps that hold a long task do not
//! wait for it, and the long tasks run together in full warps.

#include <cooperative_groups.h>

#include <cstdint>

#include "microsched/config.hpp"
#include "microsched/policy/run_steps.cuh"
#include "microsched/pool/survivor_queue.cuh"
#include "microsched/task_program.hpp"

namespace microsched {

//! The survivors as a task program: task s is queue entry s. Its context is the whole entry, the
//! saved context with the original id, read in one load by begin(), so that end() does not read
//! the queue a second time on the refill path, where the whole warp waits for it. Their number is
//! known only on the device, once the direct pass is over: the persistent driver reads it with
//! tasks_on_device().
template <class Program>
struct resumed_program {
  using context = survivor_entry<typename Program::context>;
  //! The wrapped program's unrolled_steps_of (task_program.hpp).
  static constexpr int unrolled_steps = unrolled_steps_of<Program>;
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
//! does: the hardware hands out blocks more cheaply than a resident grid strides or warps claim
//! work (docs/decisions.md, "The budgeted strategy's pass and survivors").
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
    if (!detail::run_steps(program, context, budget)) {
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
