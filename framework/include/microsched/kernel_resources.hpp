// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file kernel_resources.hpp
//! Registers, shared memory, local memory and occupancy of a compiled kernel, for reports.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "microsched/error.hpp"

namespace microsched {

struct kernel_resources {
  int registers = 0;
  std::size_t static_shared_bytes = 0;
  std::size_t local_bytes = 0;  //!< per thread; non-zero means spills or a stack frame
  int threads_per_block = 0;
  int max_blocks_per_sm = 0;  //!< occupancy at this block size
  int ptx_version = 0;        //!< the virtual architecture it is compiled from, e.g. 90
};

template <class Kernel>
[[nodiscard]] kernel_resources query_resources(Kernel* kernel, int threads_per_block,
                                               std::size_t dynamic_shared = 0) {
  cudaFuncAttributes attr{};
  MICROSCHED_CUDA_TRY(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)));
  kernel_resources r;
  r.registers = attr.numRegs;
  r.static_shared_bytes = attr.sharedSizeBytes;
  r.local_bytes = attr.localSizeBytes;
  r.threads_per_block = threads_per_block;
  r.ptx_version = attr.ptxVersion;
  MICROSCHED_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &r.max_blocks_per_sm, kernel, threads_per_block, dynamic_shared));
  return r;
}

//! Lets `kernel` launch with `dynamic_shared` bytes of dynamic shared memory, raising its limit
//! (48 KiB unless opted in) where it is lower; a limit already higher stays.
inline void allow_dynamic_shared(const void* kernel, std::size_t dynamic_shared) {
  cudaFuncAttributes attr{};
  MICROSCHED_CUDA_TRY(cudaFuncGetAttributes(&attr, kernel));
  if (dynamic_shared > static_cast<std::size_t>(attr.maxDynamicSharedSizeBytes)) {
    MICROSCHED_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(dynamic_shared)));
  }
}

//! 32-bit registers of one SM, and the most one block may use, at compute capability 5.0 to 9.0.
inline constexpr int registers_per_sm = 65536;

//! Whether `one`, the persistent driver compiled for one block of one.threads_per_block threads
//! per SM, serves a program as well as `policy`, the same driver on the policy's blocks: one
//! block fits an SM, the policy's kernel needs no more registers a thread than a block that
//! size leaves (its launch bounds cap the registers there), and `one` spills no more. Where the
//! cap binds, the compiler schedules the program's steps with fewer registers or spills them.
[[nodiscard]] inline bool serves_as_one_block(const kernel_resources& one,
                                              const kernel_resources& policy) {
  if (one.threads_per_block < 1 || one.max_blocks_per_sm < 1) return false;
  return policy.registers <= registers_per_sm / one.threads_per_block &&
         one.local_bytes <= policy.local_bytes;
}

//! An SM's shared memory, and what one block may use and takes beyond what it asks for.
struct shared_memory_limits {
  std::size_t per_sm = 0;
  std::size_t per_block_optin = 0;     //!< the most a block may use after opting in
  std::size_t reserved_per_block = 0;  //!< taken by the system for each resident block
};

//! Dynamic shared memory per block that admits `blocks` blocks per SM and not one more, for a
//! kernel with `static_shared` bytes of its own: more than per_sm / (blocks + 1), rounded up to
//! 1 KiB. 0 where `blocks` such blocks do not fit, a block may not use that much, or an argument
//! is 0. The budgeted strategy's survivors take it (scheduler.cuh, launch_budgeted).
[[nodiscard]] inline std::size_t shared_bytes_for_blocks(int blocks, const shared_memory_limits& sm,
                                                         std::size_t static_shared = 0) {
  constexpr std::size_t granule = 1024;
  if (blocks < 1 || sm.per_sm == 0 || sm.per_block_optin == 0) return 0;
  const auto count = static_cast<std::size_t>(blocks);
  const std::size_t bytes = (sm.per_sm / (count + 1) / granule + 1) * granule;
  if (bytes + static_shared > sm.per_block_optin) return 0;
  if (count * (bytes + static_shared + sm.reserved_per_block) > sm.per_sm) return 0;
  return bytes;
}

[[nodiscard]] inline std::string to_string(const kernel_resources& r) {
  return std::to_string(r.registers) + " regs, " + std::to_string(r.static_shared_bytes) +
         " B shared, " + std::to_string(r.local_bytes) + " B local, " +
         std::to_string(r.max_blocks_per_sm) + " blocks/SM of " +
         std::to_string(r.threads_per_block) + " threads";
}

}  // namespace microsched
