// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file dependent_launch.cuh
//! Programmatic dependent launch (compute capability 9.0 and above) for a launch that follows
//! another of the same run: the budgeted strategy's survivors after its direct pass. The second
//! grid's launch begins once every block of the first has exited, without waiting for the first
//! grid's completion to be signalled to the stream; its blocks then wait in hardware, before
//! reading anything the first wrote, until the first grid has completed and its writes are
//! visible. On older GPUs, and for a kernel compiled from older PTX (whose wait compiles to
//! nothing), the scheduler launches the second kernel the ordinary way.
//!
//! The first kernel does not trigger the launch early (`griddepcontrol.launch_dependents`): that
//! instruction at the start of every block of the direct pass, which lets the survivors' blocks
//! onto the SMs during its last wave, makes every budgeted run slower, whether the next launch
//! is dependent or not (docs/decisions.md, "The survivors' dependent launch").

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "microsched/config.hpp"
#include "microsched/error.hpp"

namespace microsched::detail {

//! In the dependent kernel, before its first read of the first kernel's results: returns once
//! the first grid has completed and its memory operations are visible. Returns at once in a
//! kernel launched without the dependency.
__device__ __forceinline__ void wait_for_prerequisite_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

//! Launches `kernel` on `stream` as the programmatic dependent of the kernel before it in the
//! stream. Only for a GPU of compute capability 9.0 or above, and only where `kernel` calls
//! wait_for_prerequisite_grid() before it reads what that kernel wrote.
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
