// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file divergent_program.cuh
//! Runs a managed program as a plain task program: every managed branch is an ordinary branch
//! (divergent_gate). This is the vanilla kernel of a managed program (baselines::run_vanilla),
//! and lets the termination-divergence scheduler and the exactly-once wrapper run it too.

#include "microsched/switching/managed_program.hpp"

namespace microsched::switching {

template <class Program>
struct divergent_program {
  using context = typename Program::context;
  Program inner;

  __device__ __forceinline__ context begin(task_id t) const { return inner.begin(t); }
  __device__ __forceinline__ bool step(context& c) const {
    divergent_gate gate;
    return inner.step(c, gate);
  }
  __device__ __forceinline__ void end(task_id t, const context& c) const { inner.end(t, c); }
};

}  // namespace microsched::switching
