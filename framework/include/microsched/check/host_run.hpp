// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file host_run.hpp
//! A task program run on the CPU, one task after another: where begin, step and end are
//! `__host__ __device__` and the program's pointers point to host memory, a port can be compared
//! with the original's CPU code, and its steps per task counted, on a machine without a GPU.
//! Plain C++: it needs no CUDA runtime.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "microsched/check/step_statistics.hpp"
#include "microsched/config.hpp"
#include "microsched/switching/managed_program.hpp"
#include "microsched/task_program.hpp"

namespace microsched {

namespace detail {
template <class Program>
bool step_on_host(const Program& program, typename Program::context& context) {
  if constexpr (task_program<Program>) {
    return program.step(context);
  } else {
    switching::divergent_gate gate;
    return program.step(context, gate);
  }
}
}  // namespace detail

//! Runs every task in [0, num_tasks) of `program` on the calling thread, in id order, as the
//! direct mapping does (begin, step until it returns true, end; a managed branch is an ordinary
//! branch, switching::divergent_gate), and returns each task's steps
//! (summarize() says what they cost a warp).
//! Throws std::runtime_error naming the task for one that runs past `step_limit` steps (a loop
//! that never ends), before its end().
template <class Program>
[[nodiscard]] std::vector<std::uint64_t> run_on_host(const Program& program, task_id num_tasks,
                                                     std::uint64_t step_limit = std::uint64_t{1}
                                                                                << 32) {
  static_assert(task_program<Program> || switching::managed_task_program<Program>,
                "run_on_host runs task programs and managed-branch programs whose begin, step "
                "and end are __host__ __device__");
  std::vector<std::uint64_t> steps(num_tasks);
  for (task_id t = 0; t < num_tasks; ++t) {
    auto context = program.begin(t);
    std::uint64_t n = 0;
    do {
      if (++n > step_limit) {
        std::string why = "run_on_host: task ";
        why += std::to_string(t) + " ran past " + std::to_string(step_limit);
        throw std::runtime_error(why + " steps (the step limit)");
      }
    } while (!detail::step_on_host(program, context));
    program.end(t, context);
    steps[t] = n;
  }
  return steps;
}

}  // namespace microsched
