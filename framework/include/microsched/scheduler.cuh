// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file scheduler.cuh
//! Host entry point: runs a task program on persistent warps under a schedule chosen at run time.
//! One scheduler for every kind of program; the policy says what a lane holds:
//! termination_policy for plain task programs (begin / step / end), switching_policy for
//! managed-branch programs (task-context switching at their managed branches). The default
//! policy follows from the program.
//!
//! \code
//! microsched::scheduler<julia_program<float>> sched(args);  // validates args, queries the GPU
//! sched.run(program, width * height, stream);               // asynchronous, like a launch
//! \endcode

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "microsched/device.hpp"
#include "microsched/driver/budgeted_kernel.cuh"
#include "microsched/driver/counting_kernel.cuh"
#include "microsched/driver/dependent_launch.cuh"
#include "microsched/driver/direct_kernel.cuh"
#include "microsched/driver/driver_params.hpp"
#include "microsched/driver/kernel_select.cuh"
#include "microsched/driver/persistent_kernel.cuh"
#include "microsched/driver/signalled_kernel.cuh"
#include "microsched/error.hpp"
#include "microsched/kernel_resources.hpp"
#include "microsched/policy/switching_policy.cuh"
#include "microsched/policy/termination_policy.cuh"
#include "microsched/pool/global_task_pool.cuh"
#include "microsched/pool/survivor_queue.cuh"
#include "microsched/schedule/automatic_schedule.hpp"
#include "microsched/schedule/schedule_arguments.hpp"
#include "microsched/sliced_program.cuh"
#include "microsched/switching/pool_fit.hpp"
#include "microsched/task_program.hpp"

namespace microsched {

//! The launch a schedule turns into for one problem size (what a report prints).
struct launch_plan {
  std::uint64_t blocks = 0;  //!< grid size
  int threads_per_block = 0;
  std::size_t dynamic_shared_bytes = 0;
  kernel_resources resources;
};

namespace detail {
//! A program written as a managed-branch one, complete or not (managed_branches, or a gated
//! step, const or not): its checks are the managed program's, which name what is missing.
template <class P>
concept looks_managed = requires {
  P::managed_branches;
}
|| requires(P& p, typename P::context& c, switching::divergent_gate& g) {
  p.step(c, g);
};
}  // namespace detail

//! switching_policy<> for managed-branch programs, termination_policy<> for the others.
template <class Program>
using default_policy_t =
    std::conditional_t<detail::looks_managed<Program>, switching_policy<>, termination_policy<>>;

namespace detail {
//! The static_asserts of the program kind the policy runs, naming what is missing.
template <class Program, class Policy>
constexpr bool assert_program_for() {
  if constexpr (Policy::switches_contexts) {
    return switching::assert_managed_program<Program>();
  } else {
    static_assert(!switching::managed_task_program<Program>,
                  "a managed-branch program (managed_branches, step(context&, Gate&)) runs under "
                  "switching_policy; wrap it in switching::divergent_program to run its branches "
                  "divergently under termination_policy");
    return assert_task_program<Program>();
  }
}
}  // namespace detail

//! @tparam Program a task program (task_program.hpp) or a managed-branch program
//!   (switching/managed_program.hpp), matching the policy
//! @tparam Policy termination_policy<BlockThreads> or
//!   switching_policy<BlockThreads, ContextsPerWarp, MinBlocksPerSM>
//! A scheduler may be reused for any number of runs; runs on one scheduler share its pool
//! counter, so enqueue them on one stream (or use one scheduler per stream).
template <class Program, class Policy = default_policy_t<Program>>
class scheduler {
  static_assert(detail::assert_program_for<Program, Policy>());

 public:
  using policy = Policy;
  static constexpr int block_threads = Policy::block_threads;
  static constexpr std::size_t dynamic_shared_bytes =
      Policy::template dynamic_shared_bytes<Program>;

  //! Throws std::invalid_argument for bad arguments or a kernel that does not fit the device,
  //! no_device_error without a GPU. The default (not explicit: a member may be
  //! value-initialised with `{}`) is the automatic schedule.
  scheduler() : scheduler(schedule_arguments{}) {}
  explicit scheduler(const schedule_arguments& args);

  [[nodiscard]] const schedule_arguments& arguments() const { return args_; }

  //! The schedule a run of `num_tasks` tasks uses: the arguments as given, or under
  //! pool_strategy::automatic the choice for this size (the candidate being timed while the
  //! choice is still open).
  [[nodiscard]] schedule_arguments schedule_for(task_id num_tasks) const {
    if (args_.strategy != pool_strategy::automatic) return args_;
    return automatic_.schedule_for(num_tasks);
  }

  //! Whether the next run of `num_tasks` tasks is certain to put no CUDA event around its
  //! launches: a fixed schedule, or a decided automatic choice between its timed runs.
  [[nodiscard]] bool next_run_untimed(task_id num_tasks) const {
    return args_.strategy != pool_strategy::automatic || automatic_.holds_untimed_run(num_tasks);
  }

  //! Declares what one timed run costs the caller beyond its events (a caller that empties the
  //! GPU for each timed run pays the drain): decided choices are then timed that much more
  //! rarely. Affects the size classes this process has not calibrated yet.
  void set_timed_run_cost(double ms) {
    if (!(ms > 0)) throw_invalid("timed run cost (ms)", ms, "must be positive");
    automatic_.set_timed_run_cost(ms);
  }

  //! Grid and resources for `num_tasks` tasks under schedule_for(num_tasks). Throws
  //! std::invalid_argument if it cannot launch.
  [[nodiscard]] launch_plan plan(task_id num_tasks) const {
    return plan_of(schedule_for(num_tasks), num_tasks);
  }

  //! What the automatic schedule chose for `num_tasks` tasks and why (each candidate's time), or
  //! the fixed schedule. Samples print it.
  [[nodiscard]] std::string report(task_id num_tasks) const {
    if (args_.strategy != pool_strategy::automatic) return "fixed schedule: " + to_string(args_);
    return automatic_.report(num_tasks);
  }

  //! Enqueues the whole run on `stream`; every task in [0, num_tasks) begins and ends exactly
  //! once. Zero tasks is a no-op. Under pool_strategy::automatic the first runs of each size
  //! class time their candidate with CUDA events (automatic_schedule.hpp): such a run waits for
  //! the previous calibrating run of that class to finish before it is enqueued. Throws
  //! std::invalid_argument, launching nothing, for more tasks than the program's begin() can name
  //! (validate_begin_ids: a begin(int) names 2^31).
  void run(const Program& program, task_id num_tasks, cudaStream_t stream = nullptr);

  //! Under pool_strategy::automatic: runs the program on `num_tasks` tasks until the choice for
  //! this size class is made (a few runs; at most rounds x candidates), then waits for the last
  //! one. Every run processes every task, so use it only where running the tasks again is
  //! harmless (end() overwrites its outputs): benchmarks, a warm-up. Once decided it times the
  //! choice calibration::drift_runs times and calibrates again if the fastest is off its
  //! calibrated time (calibration::recalibrate_if_drifted): the work may be other data of the same
  //! size class. A no-op for fixed schedules.
  void calibrate(const Program& program, task_id num_tasks, cudaStream_t stream = nullptr) {
    validate_begin_ids<Program>(num_tasks);
    if (args_.strategy != pool_strategy::automatic || num_tasks == 0) return;
    MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
    automatic_.recalibrate_if_drifted(
        num_tasks, stream,
        [&](const schedule_arguments& chosen) { launch(chosen, program, num_tasks, stream); },
        calibration::drift_runs);
    while (!automatic_.settled(num_tasks)) run(program, num_tasks, stream);
    MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
  }

 private:
  //! Which kernel each schedule launches (driver/kernel_select.cuh).
  using select = detail::kernel_select<Program, Policy>;
  static constexpr bool routed = select::routed;
  static constexpr bool budgetable = select::budgetable;
  using context = typename select::context;
  using kernel_t = typename select::kernel_t;
  using tail_t = typename select::tail_t;
  //! Persistent launches on the automatic grid (private_pools, hybrid and warp_range, the budgeted
  //! strategy's survivors) run as one block of 1024 threads per SM, the threads of eight blocks
  //! of 128. An SM's warp schedulers share issue slots evenly among the warps of one block but
  //! favour the block that arrived first, so a long task held by a late block waits behind the
  //! others; in one block it gets its share (docs/decisions.md, "The one-block grid").
  static constexpr int one_block_threads = select::one_block_threads;
  using one_block_policy = typename select::one_block_policy;

  //! The schedules this scheduler may launch: the arguments, or the automatic candidates (with
  //! the remapped strategy for a program that says which path each task takes).
  [[nodiscard]] std::vector<schedule_arguments> candidates() const {
    if (args_.strategy != pool_strategy::automatic) return {args_};
    auto list =
        automatic_candidates(Policy::switches_contexts, args_.switching, budgetable, block_threads);
    if constexpr (routed) {
      schedule_arguments remapped = list.front();
      remapped.strategy = pool_strategy::remapped;
      list.push_back(remapped);
    }
    return list;
  }

  //! One part of a first call (automatic_schedule::run_in_slices): the direct mapping (counting
  //! its steps into `counts` when given), the budgeted strategy, warp ranges of the default
  //! period, or private pools of one task for any other, the persistent warps as one block per
  //! SM. Only these are compiled for sliced programs.
  void launch_slice(const schedule_arguments& s, const sliced_program<Program>& program,
                    step_counts* counts, cudaStream_t stream) requires(!Policy::switches_contexts);

  //! The warp ranges' form of a first call's slices (the default period).
  using range_variant = kernel_variant<pool_strategy::warp_range, false, default_warp_range_period>;
  [[nodiscard]] static bool uses_range_slices(const schedule_arguments& s) {
    return s.strategy == pool_strategy::warp_range && period_of(s) == default_warp_range_period;
  }

  //! Loads the kernels launch_slice() runs for `s` (a kernel loads at its first use, a cost that
  //! must not fall inside a timed slice).
  void load_slice_kernels(const schedule_arguments& s) const requires(!Policy::switches_contexts);

  //! Before a timed run of `s` (automatic_schedule::run): allocates what it needs (the survivor
  //! queue, an eighth of the tasks' contexts; the pool's counters) and loads its kernels, so
  //! that its time holds neither, and a size class that runs direct allocates nothing.
  void prepare(const schedule_arguments& s, task_id num_tasks, cudaStream_t stream);

  //! Allocates, on the following's thread, what the first budgeted run of `num_tasks` tasks
  //! would allocate inside its call (staged_memory): the pool's counters and the survivor queue,
  //! each where the caller found it missing; nothing where it cannot.
  void stage_budgeted(task_id num_tasks, bool pool, bool survivors) noexcept;

  //! Loads the kernels a run of `s` launches (a kernel's first launch loads it), so that a timed
  //! run's events hold the run and not the loading; a no-op once loaded (resources_of).
  void load_kernels(const schedule_arguments& s, task_id num_tasks) const;

  //! Primes the pool, runs `enqueue(grid)` with the grid of one block of one_block_threads per
  //! SM for `kernel`, and hands the pool's counter on.
  template <class Enqueue>
  void launch_one_block(const void* kernel, const schedule_arguments& s, task_id n,
                        cudaStream_t stream, Enqueue&& enqueue) {
    const kernel_resources r = resources_of(kernel, one_block_threads, 0);
    const auto grid = static_cast<unsigned>(grid_blocks(s, n, sm_count_, r.max_blocks_per_sm, 1));
    pool_.prime(stream);
    enqueue(grid);
    MICROSCHED_CHECK_LAUNCH("microsched::persistent_kernel (slice)");
    pool_.launched();
  }

  //! A persistent schedule run as one block of one_block_threads per SM: its kernel, and the
  //! dynamic shared memory that launch takes (survivors_shared_bytes).
  struct one_block_form {
    const void* kernel = nullptr;  //!< nullptr: the schedule keeps the policy's blocks
    std::size_t shared = 0;
  };

  [[nodiscard]] launch_plan plan_of(const schedule_arguments& s, task_id num_tasks) const {
    return plan_of(s, num_tasks, one_block_launch(s));
  }
  //! `one`: one_block_launch(s), which the launches decide once and pass on.
  [[nodiscard]] launch_plan plan_of(const schedule_arguments& s, task_id num_tasks,
                                    const one_block_form& one) const;

  //! How persistent schedule `s` runs as one block of one_block_threads per SM, or no kernel
  //! where `s` keeps the policy's blocks: explicit blocks per SM, the local and remapped
  //! strategies (whose blocks are units of work), managed-branch programs (their contexts live
  //! in shared memory per block), and a program the one-block kernel would serve worse
  //! (serves_as_one_block: its launch bounds allow 64 registers a thread).
  [[nodiscard]] one_block_form one_block_launch(const schedule_arguments& s) const;

  //! Dynamic shared memory of the budgeted strategy's survivors' launch of `kernel` in blocks of
  //! `threads`, `blocks` of them per SM (0: the policy's automatic grid): enough that no more
  //! blocks fit an SM, so that its dependent launch (launch_budgeted) spreads them as planned.
  //! 0, an ordinary launch, for the other strategies, the automatic grid of the policy's blocks,
  //! GPUs below compute capability 9.0, where the bound does not fit, and for a kernel compiled
  //! from PTX below 9.0 (its wait for the direct pass compiles to nothing).
  [[nodiscard]] std::size_t survivors_shared_bytes(const schedule_arguments& s, const void* kernel,
                                                   int threads, int blocks) const;

  void launch(const schedule_arguments& s, const Program& program, task_id num_tasks,
              cudaStream_t stream);

  //! The direct mapping's textbook form with sampled blocks that write `tag`, their clock and
  //! (`count_steps`) their counts to `slots` (automatic_schedule::run_following): the layout of
  //! what they write. Throws std::invalid_argument, launching nothing, where it fits fewer blocks
  //! per SM than the direct kernel.
  signal_layout launch_signalled(const Program& program, task_id num_tasks, signal_slot* slots,
                                 std::uint32_t tag, bool count_steps,
                                 cudaStream_t stream) requires(!Policy::switches_contexts);

  //! The direct pass, then the persistent warps over its survivors. The second launch's grid is
  //! sized on the host; its task count is read on the device (resumed_program). On compute
  //! capability 9.0 or above it is a programmatic dependent launch: it begins as the direct
  //! pass's last blocks exit, and its blocks wait in hardware for that grid's writes
  //! (dependent_launch.cuh), which shortens the gap between the two. Its dynamic shared memory
  //! admits its planned blocks per SM and no more (survivors_shared_bytes): a dependent grid
  //! whose blocks crowd the SMs that free first runs slower than the ordinary launch
  //! (docs/decisions.md, "The survivors' dependent launch").
  void launch_budgeted(const schedule_arguments& s, const Program& program, task_id num_tasks,
                       cudaStream_t stream);

  [[nodiscard]] driver_params make_params(const schedule_arguments& s, task_id num_tasks) const {
    driver_params params;
    params.pool = pool_.ref(num_tasks);
    params.next_counter = pool_.next_counter();
    params.chunk = s.chunk;
    params.deferral = s.deferral > 0 ? s.deferral : Policy::default_deferral(s.switching);
    params.idle_threshold = s.fetch.idle_threshold;
    return params;
  }

  [[nodiscard]] static typename Policy::params policy_params(const schedule_arguments& s) {
    if constexpr (std::is_same_v<typename Policy::params, switching_arguments>) {
      return s.switching;
    } else {
      return {};
    }
  }

  //! Threads per block of a direct form's launch: direct_block_threads, but for a managed-branch
  //! program's textbook kernel, whose block size follows its occupancy at both sizes
  //! (direct_threads_for), queried once on the 256-thread kernel: the two differ in a constant
  //! only. A plain program's direct calls keep the block of the following's signalled kernel.
  [[nodiscard]] int direct_threads(const schedule_arguments& s, task_id num_tasks) const {
    if constexpr (!Policy::switches_contexts) {
      return direct_block_threads;
    } else {
      if (!select::textbook(s, num_tasks)) return direct_block_threads;
      if (direct_threads_ == 0) {
        const auto* wide = reinterpret_cast<const void*>(
            direct_kernel_one_per_thread<Program, direct_block_threads>);
        int of_wide = 0;
        int of_small = 0;
        MICROSCHED_CUDA_TRY(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&of_wide, wide, direct_block_threads, 0));
        MICROSCHED_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &of_small, wide, direct_small_block_threads, 0));
        direct_threads_ = direct_threads_for(of_wide, of_small);
      }
      return direct_threads_;
    }
  }

  //! A kernel's registers and occupancy at a dynamic shared size, queried once (not on every
  //! launch); the kernel is opted in to that size first, so that every launch planned with it
  //! may take it.
  [[nodiscard]] kernel_resources resources_of(const void* kernel, int threads,
                                              std::size_t dynamic_shared) const {
    const auto key = std::make_pair(kernel, dynamic_shared);
    const auto found = resources_.find(key);
    if (found != resources_.end()) return found->second;
    if (dynamic_shared > 0) allow_dynamic_shared(kernel, dynamic_shared);
    return resources_[key] = query_resources(kernel, threads, dynamic_shared);
  }

  schedule_arguments args_;
  int sm_count_ = 0;
  //! The SM's shared memory where the survivors' launch may be a dependent launch (compute
  //! capability 9.0 and above); all 0 otherwise.
  shared_memory_limits dependent_shared_;
  global_task_pool pool_;
  survivor_queue<context> survivors_;
  //! A followed size class's first budgeted run's memory, allocated ahead on the following's
  //! thread and taken by that run's prepare(): a device allocation inside a call costs it up to
  //! half a millisecond. The thread writes the buffers, then `ready`; it ends before automatic_.
  struct staged_memory {
    std::atomic<bool> ready{false};
    device_buffer<unsigned long long> pool_counters;
    survivor_queue<context> survivors;
  };
  staged_memory staged_;
  //! (kernel, dynamic shared bytes) -> its resources
  mutable std::map<std::pair<const void*, std::size_t>, kernel_resources> resources_;
  mutable int direct_threads_ = 0;  //!< the textbook direct kernel's block; 0: not queried yet
  bool signal_fits_ = false;        //!< the signalled kernel fits as many blocks per SM as direct
  detail::automatic_schedule automatic_;
};

}  // namespace microsched

#include "microsched/detail/scheduler.inl"  // IWYU pragma: export
