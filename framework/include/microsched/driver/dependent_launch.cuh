#pragma once
//! @file dependent_launch.cuh
//! Programmatic dependent launch (compute capability 9.0 and above) for a launch that follows
//! another of the same run: the budgeted strategy's survivors after its direct pass. The first
//! kernel lets the second launch early; the second's blocks take their SM slots as the first's
//! last blocks retire and wait in hardware, before reading anything the first wrote, until the
//! first has completed and its writes are visible. The gap between the two launches shrinks from
//! a kernel launch and a grid's block dispatch to the wait.
//! On older GPUs the launch is an ordinary one and both device calls compile to nothing.

#include <cuda_runtime_api.h>

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

//! Launches `kernel` on `stream` allowed to start before the previous kernel in the stream ends
//! (when `dependent`: a GPU of compute capability 9.0 or above), or as an ordinary launch.
template <class... Params, class... Args>
void launch_dependent(bool dependent, void (*kernel)(Params...), unsigned blocks, unsigned threads,
                      cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = dependent ? 1 : 0;
  MICROSCHED_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace microsched::detail
