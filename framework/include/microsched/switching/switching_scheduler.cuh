#pragma once
//! @file switching_scheduler.cuh
//! Host entry point for managed-branch programs: sizes the per-warp context pools at compile
//! time, checks them against the device's shared memory (opting in above 48 KB), and runs the
//! switching driver on an occupancy-sized grid.
//!
//! \code
//! microsched::switching::switching_scheduler<raycast_program, 128, 64> sched(args, switching);
//! sched.run(program, width * height, stream);
//! \endcode

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "microsched/device.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/error.hpp"
#include "microsched/kernel_resources.hpp"
#include "microsched/pool/global_task_pool.cuh"
#include "microsched/schedule/schedule_arguments.hpp"
#include "microsched/scheduler.cuh"
#include "microsched/switching/switching_kernel.cuh"

namespace microsched::switching {

//! @tparam Program a managed task program (see managed_program.hpp)
//! @tparam BlockThreads threads per block (a multiple of 32)
//! @tparam ContextsPerWarp detached contexts per warp's pool (1..255)
//! @tparam MinBlocksPerSM register cap: compile the kernel so that this many blocks of
//!   BlockThreads fit an SM's register file (__launch_bounds__; 0 = no cap). Local-memory spills
//!   show in plan().resources.
template <class Program, int BlockThreads = 128, int ContextsPerWarp = 64, int MinBlocksPerSM = 0>
class switching_scheduler {
  static_assert(check_managed_program<Program>());
  static_assert(BlockThreads % warp_size == 0 && BlockThreads >= warp_size && BlockThreads <= 1024,
                "BlockThreads must be a multiple of 32 in 32..1024");
  static_assert(MinBlocksPerSM >= 0 && MinBlocksPerSM <= 32, "MinBlocksPerSM must be in 0..32");

 public:
  using pool_type = pool_for<Program, ContextsPerWarp>;
  static constexpr int block_threads = BlockThreads;
  static constexpr int contexts_per_warp = ContextsPerWarp;
  static constexpr int min_blocks_per_sm = MinBlocksPerSM;
  //! Dynamic shared memory per block, known at compile time.
  static constexpr std::size_t shared_bytes =
      pool_shared_bytes(sizeof(typename pool_type::temp_storage), BlockThreads);

  //! Throws std::invalid_argument for bad arguments or a pool that does not fit, no_device_error
  //! without a GPU.
  switching_scheduler(const schedule_arguments& args, const switching_arguments& switching)
      : args_(args), switching_(switching) {
    validate(args_);
    validate(switching_);
    if (switching_.tail_code() && args_.strategy != pool_strategy::hybrid) {
      throw std::invalid_argument("strategy = " + to_string(args_.strategy) +
                                  ": the tail code (share_parked, tail_divergent) is compiled "
                                  "for the hybrid pools only");
    }
    const device_info device = current_device();
    sm_count_ = device.sm_count;
    check_shared_fit(shared_bytes, device.shared_per_block_optin, ContextsPerWarp,
                     sizeof(typename pool_type::slot), BlockThreads);
    if (shared_bytes > 48 * 1024) {
      MICROSCHED_CUDA_TRY(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel()),
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(shared_bytes)));
    }
    resources_ = query_resources(kernel(), BlockThreads, shared_bytes);
    (void)grid_blocks(args_, 1, sm_count_, resources_.max_blocks_per_sm);
  }

  [[nodiscard]] launch_plan plan(task_id num_tasks) const {
    return {grid_blocks(args_, num_tasks, sm_count_, resources_.max_blocks_per_sm), BlockThreads,
            resources_};
  }

  //! Enqueues the run on `stream`: every task in [0, num_tasks) begins and ends exactly once.
  void run(const Program& program, task_id num_tasks, cudaStream_t stream = nullptr) {
    if (num_tasks == 0) return;
    const launch_plan p = plan(num_tasks);
    pool_.reset(stream);
    tail_share_params<typename pool_type::slot> tail;
    if (switching_.share_parked > 0) tail = tail_queues(p.blocks, stream);
    kernel()<<<static_cast<unsigned>(p.blocks), BlockThreads, shared_bytes, stream>>>(
        program, make_driver_params(args_, pool_.ref(num_tasks)), switching_, tail);
    MICROSCHED_CHECK_LAUNCH("microsched::switching::switching_kernel");
  }

 private:
  using kernel_t = void(Program, driver_params, switching_arguments,
                        tail_share_params<typename pool_type::slot>);

  //! Tail sharing's queues, allocated on first use (they only grow): one per block, or one per
  //! SM with share_sm (whose control words are zeroed on `stream` before each launch).
  tail_share_params<typename pool_type::slot> tail_queues(int blocks, cudaStream_t stream) {
    const int groups = switching_.share_sm ? sm_count_ : blocks;
    const auto slots = static_cast<std::size_t>(groups) * tail_queue_capacity;
    if (tail_queue_.size() < slots) tail_queue_ = device_buffer<typename pool_type::slot>(slots);
    const auto words = static_cast<std::size_t>(sm_count_) * tail_control_words;
    if (switching_.share_sm) {
      if (tail_control_.size() < words) tail_control_ = device_buffer<int>(words);
      tail_control_.fill_bytes(0, stream);
    }
    return {tail_queue_.data(), tail_control_.data(), sm_count_};
  }

  //! One kernel per ring order (switching_arguments::fifo, a template parameter of the pools),
  //! as for the tail code: twice the kernels, none of them checking the order at run time.
  [[nodiscard]] kernel_t* kernel() const {
    return switching_.fifo ? kernel_for<true>() : kernel_for<false>();
  }

  //! The tail code is compiled for the hybrid pools only (one more kernel per pool size, register
  //! cap and ring order, not three: the binaries stay small enough to carry to a device).
  template <bool Fifo>
  [[nodiscard]] kernel_t* kernel_for() const {
    if (switching_.tail_code()) {
      return switching_kernel<Program, BlockThreads, ContextsPerWarp, pool_strategy::hybrid,
                              MinBlocksPerSM, true, Fifo>;
    }
    switch (args_.strategy) {
      case pool_strategy::local:
        return switching_kernel<Program, BlockThreads, ContextsPerWarp, pool_strategy::local,
                                MinBlocksPerSM, false, Fifo>;
      case pool_strategy::global:
        return switching_kernel<Program, BlockThreads, ContextsPerWarp, pool_strategy::global,
                                MinBlocksPerSM, false, Fifo>;
      case pool_strategy::hybrid:
        break;
    }
    return switching_kernel<Program, BlockThreads, ContextsPerWarp, pool_strategy::hybrid,
                            MinBlocksPerSM, false, Fifo>;
  }

  schedule_arguments args_;
  switching_arguments switching_;
  int sm_count_ = 0;
  kernel_resources resources_;
  global_task_pool pool_;
  device_buffer<typename pool_type::slot> tail_queue_;  //!< tail sharing: per group
  device_buffer<int> tail_control_;                     //!< tail sharing per SM: control words
};

}  // namespace microsched::switching
