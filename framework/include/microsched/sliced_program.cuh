// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file sliced_program.cuh
//! A part of a task range run as a task range of its own: sliced_program<Program> maps its ids
//! [0, slice.size()) onto the wrapped program's ids (index/task_slice.hpp says which).

#include "microsched/config.hpp"
#include "microsched/index/task_slice.hpp"
#include "microsched/task_program.hpp"

namespace microsched {

//! `program` over `slice`: task t of this program is task slice(t) of the wrapped one.
template <class Program>
struct sliced_program {
  using context = typename Program::context;
  //! The wrapped program's unrolled_steps_of (task_program.hpp).
  static constexpr int unrolled_steps = unrolled_steps_of<Program>;
  Program program;
  task_slice slice;

  __device__ __forceinline__ context begin(task_id t) const { return program.begin(slice(t)); }
  __device__ __forceinline__ bool step(context& c) const { return program.step(c); }
  __device__ __forceinline__ void end(task_id t, const context& c) const {
    program.end(slice(t), c);
  }
  __device__ __forceinline__ bool advance(context& c,
                                          int budget) const requires has_advance<Program> {
    return program.advance(c, budget);
  }
};

}  // namespace microsched
