// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file scheduler_first_calls.inl
//! The scheduler's launches for what the automatic schedule learns from (scheduler.cuh declares
//! them; scheduler.inl includes this file): the slices of a first call, and the signalled
//! direct kernel of a followed call.

namespace microsched {

template <class Program, class Policy>
void scheduler<Program, Policy>::launch_slice(
    const schedule_arguments& s, const sliced_program<Program>& program, step_counts* counts,
    cudaStream_t stream) requires(!Policy::switches_contexts) {
  using sliced = sliced_program<Program>;
  const task_id n = program.slice.size();
  if (n == 0) return;
  if (is_direct_form(s.strategy)) {  // slices hold at most 2^27 tasks: 32-bit ids
    const auto blocks = static_cast<unsigned>(direct_blocks(n, direct_block_threads));
    direct_kernel_counting<sliced, direct_block_threads>
        <<<blocks, direct_block_threads, 0, stream>>>(program, n, counts);
    MICROSCHED_CHECK_LAUNCH("microsched::direct_kernel (slice)");
    return;
  }
  if constexpr (!Policy::switches_contexts) {
    using global_variant = kernel_variant<pool_strategy::private_pools, false>;
    if (s.strategy == pool_strategy::budgeted) {
      if constexpr (budgetable) {
        survivors_.reserve(survivor_capacity(n), stream);
        const survivor_queue_ref<context> queue = survivors_.ref();
        const auto blocks = static_cast<unsigned>(direct_blocks(n, direct_block_threads));
        budgeted_pass<sliced, direct_block_threads, std::uint32_t>
            <<<blocks, direct_block_threads, 0, stream>>>(program, n, budget_of(s), queue);
        MICROSCHED_CHECK_LAUNCH("microsched::budgeted_pass (slice)");
        survivors_.launched();
        auto* tail = persistent_kernel<resumed_program<sliced>, one_block_policy, global_variant>;
        launch_one_block(
            reinterpret_cast<const void*>(tail), s, queue.capacity, stream, [&](auto grid) {
              tail<<<grid, one_block_threads, 0, stream>>>(resumed_program<sliced>{program, queue},
                                                           make_params(s, queue.capacity),
                                                           policy_params(s));
            });
        return;
      }
    }
    // Warp ranges of the default period, else private pools of one task: the forms a first
    // call predicts.
    auto* pooled = uses_range_slices(s)
                       ? persistent_kernel<sliced, one_block_policy, range_variant>
                       : persistent_kernel<sliced, one_block_policy, global_variant>;
    launch_one_block(reinterpret_cast<const void*>(pooled), s, n, stream, [&](auto grid) {
      pooled<<<grid, one_block_threads, 0, stream>>>(program, make_params(s, n), policy_params(s));
    });
  }
}

template <class Program, class Policy>
void scheduler<Program, Policy>::load_slice_kernels(const schedule_arguments& s) const
    requires(!Policy::switches_contexts) {
  using sliced = sliced_program<Program>;
  using global_variant = kernel_variant<pool_strategy::private_pools, false>;
  const auto load = [&](const void* kernel, int threads) {
    (void)resources_of(kernel, threads, 0);
  };
  if (is_direct_form(s.strategy)) {  // the counting form (run() loads the plain one)
    load(reinterpret_cast<const void*>(direct_kernel_counting<sliced, direct_block_threads>),
         direct_block_threads);
  } else if (s.strategy == pool_strategy::budgeted) {
    if constexpr (budgetable) {
      load(
          reinterpret_cast<const void*>(budgeted_pass<sliced, direct_block_threads, std::uint32_t>),
          direct_block_threads);
      load(reinterpret_cast<const void*>(
               persistent_kernel<resumed_program<sliced>, one_block_policy, global_variant>),
           one_block_threads);
    }
  } else if (uses_range_slices(s)) {
    load(reinterpret_cast<const void*>(persistent_kernel<sliced, one_block_policy, range_variant>),
         one_block_threads);
  } else {
    load(reinterpret_cast<const void*>(persistent_kernel<sliced, one_block_policy, global_variant>),
         one_block_threads);
  }
}

template <class Program, class Policy>
signal_layout scheduler<Program, Policy>::launch_signalled(
    const Program& program, task_id num_tasks, signal_slot* slots, std::uint32_t tag,
    bool count_steps, cudaStream_t stream) requires(!Policy::switches_contexts) {
  if (!signal_fits_) {
    // The sampled path's registers are every block's: where they fit fewer blocks per SM than
    // the plain direct kernel's, each followed call would run slower than direct.
    const auto fit = [&](const void* kernel) {
      return resources_of(kernel, direct_block_threads, 0).max_blocks_per_sm;
    };
    const int plain = fit(
        reinterpret_cast<const void*>(direct_kernel_one_per_thread<Program, direct_block_threads>));
    const int sampled =
        fit(reinterpret_cast<const void*>(direct_kernel_signalled<Program, direct_block_threads>));
    if (sampled < plain) {
      throw std::invalid_argument("the signalled direct kernel fits " + std::to_string(sampled) +
                                  " blocks per SM, the direct kernel " + std::to_string(plain));
    }
    signal_fits_ = true;
  }
  const std::uint64_t blocks = direct_blocks(num_tasks, direct_block_threads);
  const signal_layout layout = layout_signal(blocks, direct_block_threads, num_tasks);
  const signal_ref signal{slots, (std::uint32_t{1} << layout.shift) - 1, layout.shift, tag,
                          count_steps};
  direct_kernel_signalled<Program, direct_block_threads>
      <<<static_cast<unsigned>(blocks), direct_block_threads, 0, stream>>>(program, num_tasks,
                                                                           signal);
  MICROSCHED_CHECK_LAUNCH("microsched::direct_kernel (signalled)");
  return layout;
}

}  // namespace microsched
