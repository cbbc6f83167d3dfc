#pragma once
//! @file counted_managed_program.cuh
//! Wraps a managed program so that ending a task increments its counter (compare
//! check/counted_program.cuh): after a run every counter must read exactly 1.

#include <cstdint>

#include "microsched/switching/managed_program.hpp"

namespace microsched::switching {

template <class Program>
struct counted_managed_program {
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

}  // namespace microsched::switching
