#pragma once
//! @file global_task_pool.cuh
//! The global task pool (frey2012 §4.1): one 64-bit counter in device memory. The host owner
//! allocates and resets it; kernels receive the trivially copyable ref by value.

#include <cuda_runtime_api.h>

#include "microsched/config.hpp"
#include "microsched/error.hpp"
#include "microsched/lane/lane_mask.hpp"

namespace microsched {

//! Device view of the global pool: tasks [0, total) handed out in order by an atomic counter.
struct global_pool_ref {
  unsigned long long* counter = nullptr;
  task_id total = 0;

#if defined(__CUDACC__)
  //! Warp-collective (every lane of `mask` calls it with the same `count`): one atomic for the
  //! whole warp, the base broadcast to all. The grab may run past `total`; clamp_grab() trims it.
  [[nodiscard]] __device__ __forceinline__ task_id grab(unsigned mask, task_id count,
                                                        unsigned lane) const {
    const int leader = leader_of(mask);
    unsigned long long base = 0;
    if (static_cast<int>(lane) == leader) {
      base = atomicAdd(counter, static_cast<unsigned long long>(count));
    }
    return __shfl_sync(mask, base, leader);
  }
#endif
};

//! Owns the counter. reset() must be enqueued before every launch that uses the pool.
class global_task_pool {
 public:
  global_task_pool() { MICROSCHED_CUDA_TRY(cudaMalloc(&counter_, sizeof(*counter_))); }
  ~global_task_pool() { cudaFree(counter_); }
  global_task_pool(const global_task_pool&) = delete;
  global_task_pool& operator=(const global_task_pool&) = delete;

  void reset(cudaStream_t stream) {
    MICROSCHED_CUDA_TRY(cudaMemsetAsync(counter_, 0, sizeof(*counter_), stream));
  }
  [[nodiscard]] global_pool_ref ref(task_id total) const { return {counter_, total}; }

 private:
  unsigned long long* counter_ = nullptr;
};

}  // namespace microsched
