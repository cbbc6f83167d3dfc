// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/pipeline/cuda_backend.hpp"

namespace microsched::pipeline {

cuda_backend::cuda_backend() {
  MICROSCHED_CUDA_TRY(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
  try {
    MICROSCHED_CUDA_TRY(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
  } catch (...) {
    cudaStreamDestroy(compute_);
    throw;
  }
}

cuda_backend::~cuda_backend() {
  cudaStreamSynchronize(compute_);
  cudaStreamSynchronize(copy_);
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
  cudaStreamDestroy(copy_);
  cudaStreamDestroy(compute_);
}

int cuda_backend::make_event() {
  cudaEvent_t e{};
  MICROSCHED_CUDA_TRY(cudaEventCreate(&e));
  events_.push_back(e);
  return static_cast<int>(events_.size()) - 1;
}

void cuda_backend::record(int event, stream_type stream) {
  MICROSCHED_CUDA_TRY(cudaEventRecord(events_.at(static_cast<std::size_t>(event)), stream));
}

bool cuda_backend::query(int event) {
  const cudaError_t status = cudaEventQuery(events_.at(static_cast<std::size_t>(event)));
  if (status == cudaErrorNotReady) return false;
  MICROSCHED_CUDA_TRY(status);
  return true;
}

void cuda_backend::wait(stream_type stream, int event) {
  MICROSCHED_CUDA_TRY(cudaStreamWaitEvent(stream, events_.at(static_cast<std::size_t>(event)), 0));
}

void cuda_backend::synchronize_event(int event) {
  MICROSCHED_CUDA_TRY(cudaEventSynchronize(events_.at(static_cast<std::size_t>(event))));
}

double cuda_backend::elapsed_ms(int start, int end) {
  float ms = 0;
  MICROSCHED_CUDA_TRY(cudaEventElapsedTime(&ms, events_.at(static_cast<std::size_t>(start)),
                                           events_.at(static_cast<std::size_t>(end))));
  return ms;
}

void cuda_backend::synchronize() {
  MICROSCHED_CUDA_TRY(cudaStreamSynchronize(compute_));
  MICROSCHED_CUDA_TRY(cudaStreamSynchronize(copy_));
}

}  // namespace microsched::pipeline
