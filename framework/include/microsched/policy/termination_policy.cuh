// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file termination_policy.cuh
//! The policy for plain task programs (task_program.hpp): termination divergence only. Each lane
//! holds one task context; the warp steps its tasks `deferral` steps at a time with no ballot in
//! between (each lane stops at its task's end); finished lanes end their task when the warp
//! leaves the compute loop, and the driver refills them. The per-step cost is the step itself
//! plus a predicate; ballots, pools and atomics are paid once per check or refill.

#include <type_traits>

#include "microsched/config.hpp"
#include "microsched/policy/run_steps.cuh"
#include "microsched/policy/warp_range_lane.cuh"
#include "microsched/schedule/pool_strategy.hpp"
#include "microsched/schedule/switching_arguments.hpp"
#include "microsched/task_program.hpp"

namespace microsched {

namespace detail {

//! Whether each lane's 64-bit task id lives in shared memory (one slot per thread) instead of
//! registers while the warp computes. The id is live across the whole compute loop but used only
//! at refill and end; with a context over 16 bytes it is register pressure in the loop, and with
//! less pressure the compiler keeps the program's parameters in uniform registers inside the
//! loop, as vanilla's loop does (docs/decisions.md, "Where the task id lives").
template <class Context>
inline constexpr bool task_id_in_shared_memory = sizeof(Context) > 16;

//! termination_policy's run-time parameters besides driver_params: none.
struct termination_params {};

//! One lane's state under termination_policy (the driver's lane interface).
template <class Program, int BlockThreads>
class termination_lane {
  using context = typename Program::context;
  static constexpr bool shared_id = task_id_in_shared_memory<context>;

 public:
  struct temp_storage {
    task_id ids[shared_id ? BlockThreads : 1];  // (thread)
  };

  __device__ __forceinline__ termination_lane(temp_storage& storage, const termination_params&,
                                              unsigned char*, unsigned, unsigned)
      : storage_(storage) {}

  //! This lane holds no task: the driver may refill it.
  [[nodiscard]] __device__ __forceinline__ bool empty() const { return !live_; }

  __device__ __forceinline__ void begin(const Program& program, task_id task) {
    task_ref() = task;
    context_ = program.begin(task);
    live_ = true;
    running_ = true;
  }

  //! Warp-collective, after a refill: no lane holds a task, so the warp's work is done.
  [[nodiscard]] __device__ __forceinline__ bool done(bool /*source_exhausted*/) const {
    return !__any_sync(full_mask, live_);
  }

  //! Runs up to `steps` steps (the deferral); true when this lane is idle (its task finished).
  __device__ __forceinline__ bool compute(const Program& program, int steps) {
    if (running_) running_ = !run_steps(program, context_, steps);
    return !running_;
  }

  //! After the compute loop: a finished task ends and leaves the lane.
  __device__ __forceinline__ void end_finished(const Program& program) {
    if (live_ && !running_) {
      program.end(task_ref(), context_);
      live_ = false;
    }
  }

 private:
  [[nodiscard]] __device__ __forceinline__ task_id& task_ref() {
    if constexpr (shared_id) {
      return storage_.ids[threadIdx.x];
    } else {
      return register_id_;
    }
  }

  temp_storage& storage_;
  context context_{};
  task_id register_id_ = 0;
  bool live_ = false;     // holds a task (running or finished, not yet ended)
  bool running_ = false;  // its task has not finished
};

}  // namespace detail

//! Plain task programs: begin / step / end, termination divergence removed by refilling lanes.
//! @tparam BlockThreads threads per block (a multiple of 32 in 32..1024)
template <int BlockThreads = 128>
struct termination_policy {
  static_assert(BlockThreads % warp_size == 0 && BlockThreads >= warp_size && BlockThreads <= 1024,
                "BlockThreads must be a multiple of 32 in 32..1024");
  static constexpr int block_threads = BlockThreads;
  static constexpr bool register_cap = false;  //!< launch bounds without a minimum of blocks
  //! Run-time parameters the kernel receives besides driver_params: none.
  using params = detail::termination_params;
  //! With blocks_per_sm = 0 the grid fills at most half an SM's 2048 threads, even where
  //! occupancy allows more: fewer resident lanes each run more tasks, which shortens the run's
  //! tail, where the last long tasks hold a few warps (docs/decisions.md, "The termination
  //! grid").
  static constexpr int auto_blocks_per_sm = 1024 / BlockThreads > 0 ? 1024 / BlockThreads : 1;
  [[nodiscard]] static int auto_blocks(task_id, int) { return auto_blocks_per_sm; }
  //! Long enough to amortise the check's ballot, short enough that a lane idles little.
  [[nodiscard]] static constexpr int default_deferral(const switching_arguments&) { return 64; }
  //! Runs plain task programs; no parked contexts, so no ring order to compile.
  static constexpr bool switches_contexts = false;

  //! One task per lane, or under the warp_range strategy a run of tasks begun within the deferral.
  template <class Program, class Variant>
  using lane = std::conditional_t<Variant::strategy == pool_strategy::warp_range,
                                  detail::warp_range_lane<Program, Variant::period>,
                                  detail::termination_lane<Program, BlockThreads>>;
  template <class Program>
  static constexpr std::size_t dynamic_shared_bytes = 0;
};

}  // namespace microsched
