// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file counted_program.cuh
//! Wraps a task program, plain or managed-branch, so that ending a task also increments its
//! counter: after a run, every counter must read exactly 1. Use it to check that a port or a
//! schedule processes each task once.
//!
//! \code
//! task_counters counts(n);
//! counts.reset(stream);  // zeroed before the run
//! sched_of_counted.run(counted_program<my_program>{program, counts.data()}, n, stream);
//! assert(counts.check(stream).passed());  // each task began and ended exactly once
//! \endcode

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "microsched/check/exactly_once.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/switching/branch_forms.hpp"
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
  //! The wrapped program's unrolled_steps_of (task_program.hpp).
  static constexpr int unrolled_steps = unrolled_steps_of<Program>;
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

  // The program's knobs (switching/branch_forms.hpp), so that the automatic switching schedule
  // of the counted program tries the same forms as the program's own.
  [[nodiscard]] counted_program with_march_window(
      int w) const requires switching::windowed_program<Program> {
    return {inner.with_march_window(w), counts};
  }
  [[nodiscard]] int task_orders() const requires switching::ordered_program<Program> {
    return inner.task_orders();
  }
  [[nodiscard]] bool has_task_order(int k) const requires switching::ordered_program<Program> {
    return inner.has_task_order(k);
  }
  [[nodiscard]] counted_program with_task_order(
      int k) const requires switching::ordered_program<Program> {
    return {inner.with_task_order(k), counts};
  }
  [[nodiscard]] static const char* task_order_name(
      int k) requires switching::ordered_program<Program> {
    return Program::task_order_name(k);
  }
};

//! One counter per task on the device, for counted_program: reset before a run, check after.
class task_counters {
 public:
  task_counters() = default;
  explicit task_counters(task_id num_tasks) : counts_(num_tasks) {}
  [[nodiscard]] std::uint32_t* data() const { return counts_.data(); }
  void reset(cudaStream_t stream = nullptr) { counts_.fill_bytes(0, stream); }
  //! After the work queued on `stream`: the tally (count_exactly_once).
  [[nodiscard]] exactly_once_count check(cudaStream_t stream = nullptr,
                                         std::size_t detail_limit = 0) const {
    return count_exactly_once(counts_.to_host(stream), detail_limit);
  }

 private:
  device_buffer<std::uint32_t> counts_;
};

}  // namespace microsched
