// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file run_steps.cuh
//! Up to n steps of one lane's task: what every plain-program driver runs between two checks
//! (the persistent lanes' deferral, the budgeted strategy's direct pass).

#include "microsched/task_program.hpp"

namespace microsched::detail {

//! Runs up to `steps` steps of one lane's task; true if it finished. Lanes leave the loop on
//! their own, as in a vanilla kernel, so the warp reconverges once per call, not per step; the
//! unrolled body tests the step counter once per unrolled_steps_of<Program> steps (eight for
//! short steps, the fastest of the loop forms measured: docs/decisions.md, "The loop of
//! run_steps").
template <class Program>
__device__ __forceinline__ bool run_steps(const Program& program,
                                          typename Program::context& context, int steps) {
  if constexpr (has_advance<Program>) {
    return program.advance(context, steps);  // the program folds the count into its own test
  }
  constexpr int unroll = unrolled_steps_of<Program>;
  if constexpr (unroll == 1) {
#pragma unroll 1
    for (int s = steps; s > 0; --s) {
      if (program.step(context)) return true;
    }
  } else {
    for (int s = steps % unroll; s > 0; --s) {
      if (program.step(context)) return true;
    }
    for (int block = steps / unroll; block > 0; --block) {
#pragma unroll
      for (int k = 0; k < unroll; ++k) {
        if (program.step(context)) return true;
      }
    }
  }
  return false;
}

}  // namespace microsched::detail
