#pragma once
//! @file counted_program.cuh
//! Wraps a task program so that ending a task also increments its counter: after a run, every
//! counter must read exactly 1. Use it to check a port or a schedule processes each task once.

#include <cstdint>

#include "microsched/task_program.hpp"

namespace microsched {

template <task_program Program>
struct counted_program {
  using context = typename Program::context;

  Program inner;
  std::uint32_t* counts = nullptr;  //!< one counter per task, zeroed before the run

  __device__ __forceinline__ context begin(task_id t) const { return inner.begin(t); }
  __device__ __forceinline__ bool step(context& c) const { return inner.step(c); }
  __device__ __forceinline__ bool advance(context& c, int budget) const
    requires has_advance<Program>
  {
    return inner.advance(c, budget);
  }
  __device__ __forceinline__ void end(task_id t, const context& c) const {
    inner.end(t, c);
    atomicAdd(counts + t, 1u);
  }
};

}  // namespace microsched
