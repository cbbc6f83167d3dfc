#pragma once
//! @file event_timer.hpp
//! Times a launch with CUDA events on one stream: warm-up runs, then repetitions, median.

#include <cuda_runtime_api.h>

#include <vector>

#include "microsched/error.hpp"
#include "microsched/measure/timing_stats.hpp"

namespace microsched {

//! Owns a pair of CUDA events. `launch(stream)` must enqueue the work on `stream`.
class event_timer {
 public:
  event_timer() {
    MICROSCHED_CUDA_TRY(cudaEventCreate(&start_));
    MICROSCHED_CUDA_TRY(cudaEventCreate(&stop_));
  }
  ~event_timer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;

  template <class Launch>
  [[nodiscard]] timing_stats time(Launch&& launch, const timing_options& options,
                                  cudaStream_t stream = nullptr) {
    if (options.repetitions < 1) throw_invalid("repetitions", options.repetitions, "must be >= 1");
    for (int i = 0; i < options.warmup; ++i) launch(stream);
    MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
    std::vector<double> samples;
    samples.reserve(static_cast<std::size_t>(options.repetitions));
    for (int i = 0; i < options.repetitions; ++i) {
      MICROSCHED_CUDA_TRY(cudaEventRecord(start_, stream));
      launch(stream);
      MICROSCHED_CUDA_TRY(cudaEventRecord(stop_, stream));
      MICROSCHED_CUDA_TRY(cudaEventSynchronize(stop_));
      float ms = 0;
      MICROSCHED_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
      samples.push_back(ms);
    }
    return summarize(std::move(samples));
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

}  // namespace microsched
