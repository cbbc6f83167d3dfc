#pragma once
//! @file global_task_pool.cuh
//! The host owner of the global task pool's counter (frey2012 §4.1): allocates it and resets it
//! before each launch; kernels receive the trivially copyable global_pool_ref by value.

#include <cuda_runtime_api.h>

#include "microsched/config.hpp"
#include "microsched/error.hpp"
#include "microsched/pool/global_pool_ref.cuh"

namespace microsched {

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
