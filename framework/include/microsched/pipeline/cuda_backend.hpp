// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file cuda_backend.hpp
//! The pipeline's real backend: a compute stream, a copy stream and a pool of CUDA events, all
//! owned here (RAII). Every call is checked; queries never block.

#include <cuda_runtime_api.h>

#include <vector>

#include "microsched/error.hpp"

namespace microsched::pipeline {

class cuda_backend {
 public:
  using stream_type = cudaStream_t;

  //! Creates two non-blocking streams on the current device.
  cuda_backend();
  ~cuda_backend();
  cuda_backend(const cuda_backend&) = delete;
  cuda_backend& operator=(const cuda_backend&) = delete;

  [[nodiscard]] stream_type compute_stream() const noexcept { return compute_; }
  [[nodiscard]] stream_type copy_stream() const noexcept { return copy_; }
  //! A new event (timing enabled), destroyed with the backend.
  [[nodiscard]] int make_event();
  void record(int event, stream_type stream);
  //! True once the work recorded before the event is done; never blocks.
  [[nodiscard]] bool query(int event);
  void wait(stream_type stream, int event);
  void synchronize_event(int event);
  [[nodiscard]] double elapsed_ms(int start, int end);
  //! Waits for both streams.
  void synchronize();

 private:
  cudaStream_t compute_{};
  cudaStream_t copy_{};
  std::vector<cudaEvent_t> events_;
};

}  // namespace microsched::pipeline
