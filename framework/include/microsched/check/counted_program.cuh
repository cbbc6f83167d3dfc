// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file counted_program.cuh
//! Wraps a task program, plain or managed-branch, so that ending a task also increments its
//! counter: after a run, every counter must read exactly 1. Use it to check that a port or a
//! schedule processes each task once.
//!
//! \code
//! device_buffer<std::uint32_t> counts(n);  // zeroed before the run
//! counts.fill_bytes(0, stream);
//! sched_of_counted.run(counted_program<my_program>{program, counts.data()}, n, stream);
//! // every counts[t] == 1: each task began and ended exactly once
//! \endcode

#include <cstdint>

#include "microsched/switching/managed_program.hpp"
#include "microsched/task_program.hpp"

namespace microsched {

namespace detail {
//! A routed program's path count, 0 for the others (which the routed concept then rejects).
template <class Program>
constexpr unsigned paths_of() {
  if constexpr (routed_task_program<Program>) {
    return Program::paths;
  } else {
    return 0;
  }
}
}  // namespace detail

template <class Program>
struct counted_program {
  //! Forwarded from a routed program (task_program.hpp); 0 otherwise.
  static constexpr unsigned paths = detail::paths_of<Program>();
  using context = typename Program::context;
  Program inner;
  std::uint32_t* counts = nullptr;  //!< one counter per task, zeroed before the run

  __device__ __forceinline__ context begin(task_id t) const { return inner.begin(t); }
  __device__ __forceinline__ bool step(context& c) const { return inner.step(c); }
  __device__ __forceinline__ bool advance(context& c,
                                          int budget) const requires has_advance<Program> {
    return inner.advance(c, budget);
  }
  __device__ __forceinline__ unsigned path(task_id t) const requires routed_task_program<Program> {
    return inner.path(t);
  }
  __device__ __forceinline__ void end(task_id t, const context& c) const {
    inner.end(t, c);
    atomicAdd(counts + t, 1u);
  }
};

//! A managed-branch program stays one: the wrapper forwards its branches and gated step.
template <switching::managed_task_program Program>
struct counted_program<Program> {
  using context = typename Program::context;
  static constexpr int managed_branches = Program::managed_branches;
  Program inner;
  std::uint32_t* counts = nullptr;  //!< one counter per task, zeroed before the run

  __device__ __forceinline__ context begin(task_id t) const { return inner.begin(t); }
  template <class Gate>
  __device__ __forceinline__ bool step(context& c, Gate& gate) const {
    return inner.step(c, gate);
  }
  __device__ __forceinline__ void end(task_id t, const context& c) const {
    inner.end(t, c);
    atomicAdd(counts + t, 1u);
  }
};

}  // namespace microsched
