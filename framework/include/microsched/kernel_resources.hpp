#pragma once
//! @file kernel_resources.hpp
//! Registers, shared memory, local memory and occupancy of a compiled kernel, for reports.

#include <cuda_runtime_api.h>

#include <string>

#include "microsched/error.hpp"

namespace microsched {

struct kernel_resources {
  int registers = 0;
  std::size_t static_shared_bytes = 0;
  std::size_t local_bytes = 0;  //!< per thread; non-zero means spills or a stack frame
  int threads_per_block = 0;
  int max_blocks_per_sm = 0;  //!< occupancy at this block size
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
  MICROSCHED_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &r.max_blocks_per_sm, kernel, threads_per_block, dynamic_shared));
  return r;
}

[[nodiscard]] inline std::string to_string(const kernel_resources& r) {
  return std::to_string(r.registers) + " regs, " + std::to_string(r.static_shared_bytes) +
         " B shared, " + std::to_string(r.local_bytes) + " B local, " +
         std::to_string(r.max_blocks_per_sm) + " blocks/SM of " +
         std::to_string(r.threads_per_block) + " threads";
}

}  // namespace microsched
