// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file scheduler.inl
//! The scheduler's construction and launches (scheduler.cuh declares them; this file is
//! included at its end): the automatic schedule's runs, the fixed schedules' launches and the
//! budgeted strategy's two launches; scheduler_first_calls.inl holds the slices of a first call
//! and the following's signalled launch.

namespace microsched {

template <class Program, class Policy>
scheduler<Program, Policy>::scheduler(const schedule_arguments& args) : args_(args) {
  validate(args_);
  if (Policy::switches_contexts && args_.strategy == pool_strategy::warp_range) {
    throw std::invalid_argument(
        "strategy warp_range: runs plain task programs only; a managed-branch program parks "
        "contexts, use local, private_pools or hybrid");
  }
  if (!budgetable && args_.strategy == pool_strategy::budgeted) {
    throw std::invalid_argument(
        "strategy budgeted: runs plain task programs whose context is trivially copyable (it "
        "saves the contexts of the tasks still running after the budget to device memory)");
  }
  if (!routed && args_.strategy == pool_strategy::remapped) {
    throw std::invalid_argument(
        "strategy remapped: the program must say which path each task takes (`static "
        "constexpr unsigned paths` and `unsigned path(task_id) const`, task_program.hpp)");
  }
  const device_info device = current_device();
  sm_count_ = device.sm_count;
  if (device.compute_major >= 9) {
    dependent_shared_ = {device.shared_per_sm, device.shared_per_block_optin,
                         device.shared_reserved_per_block};
  }
  if (args_.strategy == pool_strategy::automatic) {
    std::function<std::function<void()>(const schedule_arguments&, task_id)> follow_warm;
    if constexpr (!Policy::switches_contexts) {
      // On the caller's thread, when the following starts: what is missing now. The work it
      // returns runs on the following's thread: it loads the kernels a followed call launches (a
      // first launch would load them inside the call) and allocates what the first budgeted run
      // would; cudaFuncGetAttributes is thread-safe, and a failure there fails the launch later.
      // The scheduler outlives that thread (automatic_ is its last member).
      follow_warm = [this](const schedule_arguments& budgeted, task_id num_tasks) {
        const bool pool = !pool_.allocated();
        const bool survivors = survivors_.needs(survivor_capacity(num_tasks));
        return std::function<void()>([this, budgeted, num_tasks, pool, survivors] {
          cudaFuncAttributes attributes;
          (void)cudaFuncGetAttributes(&attributes,
                                      direct_kernel_signalled<Program, direct_block_threads>);
          if constexpr (budgetable) {
            const auto run = select::budgeted_kernels(budgeted, 1);  // followed: narrow ids
            (void)cudaFuncGetAttributes(&attributes, run.pass);
            (void)cudaFuncGetAttributes(&attributes, run.tail);
            (void)cudaFuncGetAttributes(&attributes, run.one_block_tail);
            stage_budgeted(num_tasks, pool, survivors);
          }
        });
      };
    }
    automatic_.configure(
        detail::automatic_key<Program, Policy>(detail::device_key(device.ordinal, device.name)),
        candidates(), !Policy::switches_contexts, !Policy::switches_contexts && budgetable,
        std::move(follow_warm));
  }
  if constexpr (dynamic_shared_bytes > 0) {
    switching::require_shared_fit(dynamic_shared_bytes, device.shared_per_block_optin,
                                  Policy::contexts_per_warp, sizeof(typename Program::context),
                                  block_threads);
  }
  // A fixed schedule is validated against occupancy now, before any launch, and its kernel
  // opted in to its dynamic shared memory (resources_of). Under automatic nothing is queried
  // here: each query loads a kernel, a cost the first call would pay for candidates it never
  // runs; a candidate that cannot launch is dropped at its first run instead (with the reason).
  if (args_.strategy != pool_strategy::automatic && !is_direct_form(args_.strategy)) {
    (void)plan_of(args_, 1);
  }
}

template <class Program, class Policy>
void scheduler<Program, Policy>::run(const Program& program, task_id num_tasks,
                                     cudaStream_t stream) {
  validate_begin_ids<Program>(num_tasks);
  if (num_tasks == 0) return;
  if (args_.strategy != pool_strategy::automatic) {
    launch(args_, program, num_tasks, stream);
    return;
  }
  const auto launch_chosen = [&](const schedule_arguments& chosen) {
    launch(chosen, program, num_tasks, stream);
  };
  if constexpr (!Policy::switches_contexts) {
    const auto signalled = [&](signal_slot* slots, std::uint32_t tag, bool count_steps) {
      return launch_signalled(program, num_tasks, slots, tag, count_steps, stream);
    };
    const auto prepare_run = [&](const schedule_arguments& chosen, bool) {
      prepare(chosen, num_tasks, stream);
    };
    if (automatic_.run_following(num_tasks, stream, signalled, launch_chosen, prepare_run)) return;
  }
  if (automatic_.run_untimed(num_tasks, launch_chosen)) return;
  automatic_.run(
      num_tasks, stream, launch_chosen,
      [&](const schedule_arguments& chosen, const task_slice& slice, step_counts* counts) {
        // Managed-branch programs are not cut (automatic_schedule::configure): no slice kernels.
        if constexpr (!Policy::switches_contexts) {
          launch_slice(chosen, sliced_program<Program>{program, slice}, counts, stream);
        }
      },
      [&](const schedule_arguments& chosen, bool slices) {
        if constexpr (!Policy::switches_contexts) {
          if (slices) {
            load_slice_kernels(chosen);
            return;
          }
        }
        prepare(chosen, num_tasks, stream);
      });
}

template <class Program, class Policy>
void scheduler<Program, Policy>::stage_budgeted(task_id num_tasks, bool pool,
                                                bool survivors) noexcept {
  if (!pool && !survivors) return;
  cudaStream_t own = nullptr;
  if (cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) != cudaSuccess) return;
  bool staged = false;
  try {
    if (pool) staged_.pool_counters = device_buffer<unsigned long long>(2);
    // reserve() zeroes the counts on `own`, which the synchronise completes.
    if (survivors) staged_.survivors.reserve(survivor_capacity(num_tasks), own);
    staged = cudaStreamSynchronize(own) == cudaSuccess;
  } catch (...) {
    // No room, or no device memory: the run allocates (or fails) in its own call.
  }
  (void)cudaStreamDestroy(own);
  if (staged) staged_.ready.store(true, std::memory_order_release);
}

template <class Program, class Policy>
void scheduler<Program, Policy>::prepare(const schedule_arguments& s, task_id num_tasks,
                                         cudaStream_t stream) {
  if (staged_.ready.load(std::memory_order_acquire)) {
    staged_.ready.store(false, std::memory_order_relaxed);  // taken once
    pool_.adopt(std::move(staged_.pool_counters));
    survivors_.adopt(std::move(staged_.survivors));
    staged_.pool_counters = {};  // frees what was not taken (this run allocated its own)
    staged_.survivors = {};
  }
  if (!is_direct_form(s.strategy)) pool_.prime(stream);
  if constexpr (budgetable) {
    try {
      if (s.strategy == pool_strategy::budgeted) {
        survivors_.reserve(survivor_capacity(num_tasks), stream);
      }
    } catch (const std::invalid_argument&) {
      // No room: the candidate fails at its own run and is dropped with the reason.
    }
  }
  load_kernels(s, num_tasks);
}

template <class Program, class Policy>
void scheduler<Program, Policy>::load_kernels(const schedule_arguments& s,
                                              task_id num_tasks) const {
  try {
    if (is_direct_form(s.strategy)) {
      const int threads = direct_threads(s, num_tasks);
      (void)resources_of(reinterpret_cast<const void*>(select::direct(s, num_tasks, threads)),
                         threads, 0);
      return;
    }
    if constexpr (budgetable) {
      if (s.strategy == pool_strategy::budgeted) {
        (void)resources_of(
            reinterpret_cast<const void*>(select::budgeted_kernels(s, num_tasks).pass),
            direct_block_threads, 0);
      }
    }
    (void)plan_of(s, num_tasks, one_block_launch(s));
  } catch (const std::invalid_argument&) {
    // It cannot launch here: its own run fails and drops it with the reason.
  }
}

template <class Program, class Policy>
launch_plan scheduler<Program, Policy>::plan_of(const schedule_arguments& s, task_id num_tasks,
                                                const one_block_form& one) const {
  if (is_direct_form(s.strategy)) {
    const int threads = direct_threads(s, num_tasks);
    return {direct_blocks(num_tasks, threads), threads, 0,
            resources_of(reinterpret_cast<const void*>(select::direct(s, num_tasks, threads)),
                         threads, 0)};
  }
  if (one.kernel != nullptr) {
    const kernel_resources r = resources_of(one.kernel, one_block_threads, one.shared);
    return {grid_blocks(s, num_tasks, sm_count_, r.max_blocks_per_sm, 1), one_block_threads,
            one.shared, r};
  }
  const void* persistent =
      s.strategy == pool_strategy::budgeted
          ? reinterpret_cast<const void*>(select::budgeted_kernels(s, num_tasks).tail)
          : reinterpret_cast<const void*>(select::kernel(s));
  const std::size_t shared =
      s.strategy == pool_strategy::budgeted
          ? survivors_shared_bytes(s, persistent, block_threads, s.blocks_per_sm)
          : dynamic_shared_bytes;
  const kernel_resources r = resources_of(persistent, block_threads, shared);
  return {grid_blocks(s, num_tasks, sm_count_, r.max_blocks_per_sm,
                      Policy::auto_blocks(num_tasks, sm_count_)),
          block_threads, shared, r};
}

template <class Program, class Policy>
auto scheduler<Program, Policy>::one_block_launch(const schedule_arguments& s) const
    -> one_block_form {
  if constexpr (Policy::switches_contexts) {
    return {};
  } else {
    if (s.blocks_per_sm != 0) return {};
    const void* one = nullptr;
    const void* own = nullptr;
    if (s.strategy == pool_strategy::budgeted) {
      if constexpr (budgetable) {
        const auto run = select::budgeted_kernels(s, 1);  // the survivors' grids take any count
        one = reinterpret_cast<const void*>(run.one_block_tail);
        own = reinterpret_cast<const void*>(run.tail);
      }
    } else if (kernel_t* k = select::one_block_kernel(s)) {
      one = reinterpret_cast<const void*>(k);
      own = reinterpret_cast<const void*>(select::kernel(s));
    }
    if (one == nullptr) return {};
    const std::size_t shared = survivors_shared_bytes(s, one, one_block_threads, 1);
    const bool serves = serves_as_one_block(resources_of(one, one_block_threads, shared),
                                            resources_of(own, block_threads, dynamic_shared_bytes));
    return serves ? one_block_form{one, shared} : one_block_form{};
  }
}

template <class Program, class Policy>
std::size_t scheduler<Program, Policy>::survivors_shared_bytes(const schedule_arguments& s,
                                                               const void* kernel, int threads,
                                                               int blocks) const {
  if (s.strategy != pool_strategy::budgeted || blocks < 1 || dependent_shared_.per_sm == 0) {
    return 0;
  }
  const kernel_resources own = resources_of(kernel, threads, 0);
  if (own.ptx_version < 90) return 0;
  return shared_bytes_for_blocks(blocks, dependent_shared_, own.static_shared_bytes);
}

template <class Program, class Policy>
void scheduler<Program, Policy>::launch(const schedule_arguments& s, const Program& program,
                                        task_id num_tasks, cudaStream_t stream) {
  if (is_direct_form(s.strategy)) {
    const int threads = direct_threads(s, num_tasks);
    const auto blocks = static_cast<unsigned>(direct_blocks(num_tasks, threads));
    select::direct(s, num_tasks, threads)<<<blocks, threads, 0, stream>>>(program, num_tasks);
    MICROSCHED_CHECK_LAUNCH("microsched::direct_kernel");
    return;
  }
  if (s.strategy == pool_strategy::budgeted) {
    launch_budgeted(s, program, num_tasks, stream);
    return;
  }
  const one_block_form one = one_block_launch(s);
  const launch_plan p = plan_of(s, num_tasks, one);
  pool_.prime(stream);
  kernel_t* const persistent =
      one.kernel != nullptr ? select::one_block_kernel(s) : select::kernel(s);
  persistent<<<static_cast<unsigned>(p.blocks), static_cast<unsigned>(p.threads_per_block),
               p.dynamic_shared_bytes, stream>>>(program, make_params(s, num_tasks),
                                                 policy_params(s));
  MICROSCHED_CHECK_LAUNCH("microsched::persistent_kernel");
  pool_.launched();
}

template <class Program, class Policy>
void scheduler<Program, Policy>::launch_budgeted(const schedule_arguments& s,
                                                 const Program& program, task_id num_tasks,
                                                 cudaStream_t stream) {
  if constexpr (budgetable) {
    const one_block_form one = one_block_launch(s);
    const launch_plan p = plan_of(s, num_tasks, one);
    survivors_.reserve(survivor_capacity(num_tasks), stream);
    pool_.prime(stream);  // before the pass: nothing may come between it and its dependent
    const survivor_queue_ref<context> queue = survivors_.ref();
    const auto run = select::budgeted_kernels(s, num_tasks);
    const auto blocks = static_cast<unsigned>(direct_blocks(num_tasks, direct_block_threads));
    run.pass<<<blocks, direct_block_threads, 0, stream>>>(program, num_tasks, budget_of(s), queue);
    MICROSCHED_CHECK_LAUNCH("microsched::budgeted_pass");
    survivors_.launched();
    tail_t* const resume = one.kernel != nullptr ? run.one_block_tail : run.tail;
    const resumed_program<Program> resumed{program, queue};
    if (p.dynamic_shared_bytes > 0) {
      detail::launch_dependent(resume, static_cast<unsigned>(p.blocks),
                               static_cast<unsigned>(p.threads_per_block), p.dynamic_shared_bytes,
                               stream, resumed, make_params(s, queue.capacity), policy_params(s));
    } else {
      resume<<<static_cast<unsigned>(p.blocks), static_cast<unsigned>(p.threads_per_block), 0,
               stream>>>(resumed, make_params(s, queue.capacity), policy_params(s));
    }
    MICROSCHED_CHECK_LAUNCH("microsched::persistent_kernel (budgeted survivors)");
    pool_.launched();
  }
}

}  // namespace microsched

#include "microsched/detail/scheduler_first_calls.inl"  // IWYU pragma: export
