// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file kernel_select.cuh
//! Which kernel a schedule launches, for one program and policy: the direct mapping's two forms,
//! the budgeted strategy's pass and survivors, and the persistent driver per (strategy, ring
//! order, period). The choice is made on the host once per launch, so that none of it is a
//! branch in the compute loop; only the kernels a schedule can reach are instantiated.

#include <cstdint>
#include <type_traits>

#include "microsched/driver/budgeted_kernel.cuh"
#include "microsched/driver/direct_kernel.cuh"
#include "microsched/driver/driver_params.hpp"
#include "microsched/driver/persistent_kernel.cuh"
#include "microsched/policy/termination_policy.cuh"
#include "microsched/pool/survivor_queue.cuh"
#include "microsched/schedule/schedule_arguments.hpp"
#include "microsched/task_program.hpp"

namespace microsched::detail {

template <class Program, class Policy>
struct kernel_select {
  //! The program says which path each task takes, so the remapped strategy can run it.
  static constexpr bool routed = !Policy::switches_contexts && routed_task_program<Program>;
  //! The budgeted strategy can save and resume this program's tasks.
  static constexpr bool budgetable =
      !Policy::switches_contexts && std::is_trivially_copyable_v<typename Program::context>;
  using context = typename Program::context;
  using kernel_t = void(Program, driver_params, typename Policy::params);
  using direct_t = void(Program, task_id);
  using budgeted_t = void(Program, task_id, int, survivor_queue_ref<context>);
  using tail_t = void(resumed_program<Program>, driver_params, typename Policy::params);
  //! The automatic grid's persistent launches: one block of 1024 threads per SM
  //! (docs/decisions.md, "The one-block grid").
  static constexpr int one_block_threads = 1024;
  using one_block_policy = termination_policy<one_block_threads>;

  //! The direct mapping's kernel: the textbook form (up to 2^31 tasks) in blocks of `threads`
  //! (direct_block_threads, or for a managed-branch program direct_small_block_threads), or the
  //! grid-stride loop over 64-bit ids (strided, and direct beyond 2^31 tasks), which reads its
  //! block size at run time.
  [[nodiscard]] static direct_t* direct(const schedule_arguments& s, task_id num_tasks,
                                        int threads = direct_block_threads) {
    if (!textbook(s, num_tasks)) return direct_kernel_strided<Program>;
    if constexpr (Policy::switches_contexts) {  // the only programs that take the smaller block
      if (threads == direct_small_block_threads) {
        return direct_kernel_one_per_thread<Program, direct_small_block_threads>;
      }
    }
    return direct_kernel_one_per_thread<Program, direct_block_threads>;  // blocks cover all
  }
  //! Whether a direct form runs the textbook kernel (else the grid-stride loop).
  [[nodiscard]] static constexpr bool textbook(const schedule_arguments& s, task_id num_tasks) {
    return s.strategy == pool_strategy::direct && narrow_ids(num_tasks);
  }

  [[nodiscard]] static budgeted_t* budgeted(task_id num_tasks) {
    if constexpr (budgetable) {
      if (narrow_ids(num_tasks)) {
        return budgeted_pass<Program, direct_block_threads, std::uint32_t>;
      }
      return budgeted_pass<Program, direct_block_threads, std::uint64_t>;
    } else {
      return nullptr;
    }
  }

  //! The budgeted strategy's second launch: private pools of `chunk` survivors per lane (the
  //! private_pools strategy): a lane holds about two survivors over the whole launch, so how finely
  //! they are handed out decides the balance at the end. TailPolicy is Policy, or
  //! one_block_policy for the automatic grid (one_block_launch()).
  template <class TailPolicy>
  [[nodiscard]] static tail_t* tail_for(const schedule_arguments&) {
    if constexpr (budgetable) {
      return persistent_kernel<resumed_program<Program>, TailPolicy,
                               kernel_variant<pool_strategy::private_pools, false>>;
    } else {
      return nullptr;
    }
  }

  //! A budgeted run's kernels: the direct pass and the survivors' grid, the policy's blocks or one
  //! block per SM (scheduler::one_block_launch picks). What loads a budgeted run ahead and what
  //! launches it both name them here.
  struct budgeted_run {
    budgeted_t* pass = nullptr;
    tail_t* tail = nullptr;
    tail_t* one_block_tail = nullptr;
  };
  [[nodiscard]] static budgeted_run budgeted_kernels(const schedule_arguments& s,
                                                     task_id num_tasks) {
    return {budgeted(num_tasks), tail_for<Policy>(s), tail_for<one_block_policy>(s)};
  }

  //! One kernel per (strategy, ring order): the choice is made here, once per launch, so that
  //! none of it is a branch in the compute loop.
  [[nodiscard]] static kernel_t* kernel(const schedule_arguments& s) {
    if constexpr (Policy::switches_contexts) {
      return s.switching.fifo ? kernel_for<true>(s) : kernel_for<false>(s);
    } else {
      return kernel_for<false>(s);
    }
  }
  template <bool Fifo>
  [[nodiscard]] static kernel_t* kernel_for(const schedule_arguments& s) {
    switch (s.strategy) {
      case pool_strategy::local:
        return entry<Policy, kernel_variant<pool_strategy::local, Fifo>>();
      case pool_strategy::remapped:
        if constexpr (routed) {
          return entry<Policy, kernel_variant<pool_strategy::remapped, false>>();
        }
        break;
      default:
        break;
    }
    return pooled_kernel<Policy, Fifo>(s);
  }

  //! The private_pools, hybrid and warp_range strategies' kernel on KernelPolicy's blocks (Policy,
  //! or one_block_policy); hybrid for any other strategy, and for warp_range under a policy that
  //! switches contexts.
  template <class KernelPolicy, bool Fifo>
  [[nodiscard]] static kernel_t* pooled_kernel(const schedule_arguments& s) {
    if (s.strategy == pool_strategy::private_pools) {
      return entry<KernelPolicy, kernel_variant<pool_strategy::private_pools, Fifo>>();
    }
    if constexpr (!KernelPolicy::switches_contexts) {
      if (s.strategy == pool_strategy::warp_range) {
        if (period_of(s) == long_warp_range_period) {
          return entry<KernelPolicy,
                       kernel_variant<pool_strategy::warp_range, Fifo, long_warp_range_period>>();
        }
        return entry<KernelPolicy,
                     kernel_variant<pool_strategy::warp_range, Fifo, default_warp_range_period>>();
      }
    }
    return entry<KernelPolicy, kernel_variant<pool_strategy::hybrid, Fifo>>();
  }

  //! The persistent driver on one_block_policy's blocks for the strategies that take them
  //! (one_block_launch()), else nullptr.
  [[nodiscard]] static kernel_t* one_block_kernel(const schedule_arguments& s) {
    if constexpr (Policy::switches_contexts) {
      return nullptr;
    } else {
      switch (s.strategy) {
        case pool_strategy::private_pools:
        case pool_strategy::hybrid:
        case pool_strategy::warp_range:
          return pooled_kernel<one_block_policy, false>(s);
        default:
          return nullptr;
      }
    }
  }

  template <class KernelPolicy, class Variant>
  [[nodiscard]] static kernel_t* entry() {
    if constexpr (KernelPolicy::register_cap) {
      return persistent_kernel_capped<Program, KernelPolicy, Variant>;
    } else {
      return persistent_kernel<Program, KernelPolicy, Variant>;
    }
  }
};

}  // namespace microsched::detail
