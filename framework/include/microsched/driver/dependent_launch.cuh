#pragma once
//! @file dependent_launch.cuh
//! Programmatic dependent launch (compute capability 9.0 and above) for a launch that follows
//! another of the same run: the budgeted strategy's survivors after its direct pass. The first
//! kernel lets the second launch early; the second's blocks take their SM slots as the first's
//! last blocks retire and wait in hardware, before reading anything the first wrote, until the
//! first has completed and its writes are visible. The gap between the two launches shrinks from
//! a kernel launch and a grid's block dispatch to the wait. On older GPUs both device calls
//! compile to nothing, and the scheduler launches the second kernel the ordinary way.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "microsched/config.hpp"
#include "microsched/error.hpp"

namespace microsched::detail {

//! In the first kernel: its dependent may launch now (it still waits for this grid's end).
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

//! In the dependent kernel, before its first read of the first kernel's results: returns once
//! the first grid has completed and its memory operations are visible. Returns at once in a
//! kernel launched without the dependency.
__device__ __forceinline__ void wait_for_prerequisite_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

//! Launches `kernel` on `stream`, allowed to start before the kernel before it in the stream
//! ends. Only for a GPU of compute capability 9.0 or above, and only where that kernel calls
//! allow_dependent_launch() and this one wait_for_prerequisite_grid().
template <class... Params, class... Args>
void launch_dependent(void (*kernel)(Params...), unsigned blocks, unsigned threads,
                      std::size_t dynamic_shared_bytes, cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = dynamic_shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  MICROSCHED_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace microsched::detail
