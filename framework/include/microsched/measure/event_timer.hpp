// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file event_timer.hpp
//! Times a launch with CUDA events on one stream: warm-up runs, then repetitions, median; or two
//! launches in turns; or one launch, for a caller that owns the loop (a benchmark's iterations).

#include <cuda_runtime_api.h>

#include <utility>
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
    for (int i = 0; i < options.repetitions; ++i) samples.push_back(time_once(launch, stream));
    return summarize(std::move(samples));
  }

  //! Times two launches in turns (a, b, a, b, ...) after the warm-up runs of each, so that a
  //! change of clocks or of other work on the GPU between two blocks of runs does not show as a
  //! ratio between them.
  template <class LaunchA, class LaunchB>
  [[nodiscard]] std::pair<timing_stats, timing_stats> time_in_turns(LaunchA&& a, LaunchB&& b,
                                                                    const timing_options& options,
                                                                    cudaStream_t stream = nullptr) {
    if (options.repetitions < 1) throw_invalid("repetitions", options.repetitions, "must be >= 1");
    for (int i = 0; i < options.warmup; ++i) {
      a(stream);
      b(stream);
    }
    MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
    std::vector<double> samples_a, samples_b;
    samples_a.reserve(static_cast<std::size_t>(options.repetitions));
    samples_b.reserve(static_cast<std::size_t>(options.repetitions));
    for (int i = 0; i < options.repetitions; ++i) {
      samples_a.push_back(time_once(a, stream));
      samples_b.push_back(time_once(b, stream));
    }
    return {summarize(std::move(samples_a)), summarize(std::move(samples_b))};
  }

  //! One launch between the two events, waited for: milliseconds. No warm-up: the caller's.
  template <class Launch>
  [[nodiscard]] double time_once(Launch&& launch, cudaStream_t stream = nullptr) {
    MICROSCHED_CUDA_TRY(cudaEventRecord(start_, stream));
    launch(stream);
    MICROSCHED_CUDA_TRY(cudaEventRecord(stop_, stream));
    MICROSCHED_CUDA_TRY(cudaEventSynchronize(stop_));
    float ms = 0;
    MICROSCHED_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

}  // namespace microsched
