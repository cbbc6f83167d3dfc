// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/automatic_schedule.hpp"

#include <bit>
#include <cstdio>

#include "microsched/error.hpp"

namespace microsched::detail {

calibration_state::~calibration_state() {
  if (start_event != nullptr) cudaEventDestroy(start_event);
  if (stop_event != nullptr) cudaEventDestroy(stop_event);
  for (cudaEvent_t e : slice_events) cudaEventDestroy(e);
  if (counts != nullptr) cudaFree(counts);
}

bool calibration_state::collect(bool wait) {
  if (pending < 0) return true;
  if (wait) {
    MICROSCHED_CUDA_TRY(cudaEventSynchronize(stop_event));
  } else {
    const cudaError_t state = cudaEventQuery(stop_event);
    if (state == cudaErrorNotReady) return false;
    MICROSCHED_CUDA_TRY(state);
  }
  const int candidate = pending;
  pending = -1;
  choice.record(candidate, elapsed_run_ms(start_event, stop_event), pending_tasks);
  return true;
}

void calibration_state::start(int candidate, task_id tasks, cudaStream_t stream) {
  if (start_event == nullptr) MICROSCHED_CUDA_TRY(cudaEventCreate(&start_event));
  if (stop_event == nullptr) MICROSCHED_CUDA_TRY(cudaEventCreate(&stop_event));
  MICROSCHED_CUDA_TRY(cudaEventRecord(start_event, stream));
  pending = candidate;
  pending_tasks = tasks;
}

void calibration_state::stop(cudaStream_t stream) {
  MICROSCHED_CUDA_TRY(cudaEventRecord(stop_event, stream));
}

double elapsed_run_ms(cudaEvent_t start, cudaEvent_t stop) {
  MICROSCHED_CUDA_TRY(cudaEventSynchronize(stop));
  float ms = 0;
  MICROSCHED_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
  return ms > 0 ? static_cast<double>(ms) : 0.0005;
}

int in_call_plan::shift(task_id tasks) {
  const task_id per_granule = tasks / (task_id{period} * 64);
  return per_granule <= 1 ? 0 : static_cast<int>(std::bit_width(per_granule)) - 1;
}

int candidate_for(predicted_form form, const std::vector<schedule_arguments>& candidates) {
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    const schedule_arguments& s = candidates[i];
    if (form == predicted_form::budgeted && s.strategy == pool_strategy::budgeted &&
        budget_of(s) == static_cast<int>(step_counts::budget) && s.blocks_per_sm == 0) {
      return static_cast<int>(i);
    }
    if (form == predicted_form::pooled && s.strategy == pool_strategy::private_pools &&
        s.chunk == 1) {
      return static_cast<int>(i);
    }
    if (form == predicted_form::ranged && s.strategy == pool_strategy::warp_range) {
      return static_cast<int>(i);
    }
  }
  return 0;
}

std::string automatic_schedule::describe_first_call(const calibration& choice,
                                                    const step_counts& seen, task_id tasks,
                                                    double whole_ms, int chosen) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f ms", whole_ms);
  std::string out = "first call: a counted 1/" + std::to_string(in_call_plan::period) +
                    " slice ran direct (" + describe(seen, tasks) +
                    "; the whole call at its pace " + buffer + ")";
  if (whole_ms < in_call_plan::predict_from_ms) return out + ", a short call: the rest ran direct";
  return out + "; the rest ran " + to_string(choice.candidate(chosen));
}

step_counts* automatic_schedule::ensure_counts(calibration_state& state, cudaStream_t stream) {
  if (state.counts == nullptr) {
    MICROSCHED_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&state.counts), sizeof(step_counts)));
  }
  MICROSCHED_CUDA_TRY(cudaMemsetAsync(state.counts, 0, sizeof(step_counts), stream));
  return state.counts;
}

step_counts automatic_schedule::read_counts(const step_counts* counts) {
  step_counts host;
  MICROSCHED_CUDA_TRY(cudaMemcpy(&host, counts, sizeof host, cudaMemcpyDeviceToHost));
  return host;
}

std::vector<cudaEvent_t> automatic_schedule::ensure_slice_events(calibration_state& state,
                                                                 std::size_t count) {
  while (state.slice_events.size() < count) {
    cudaEvent_t e = nullptr;
    MICROSCHED_CUDA_TRY(cudaEventCreate(&e));
    state.slice_events.push_back(e);
  }
  return state.slice_events;
}

void automatic_schedule::record_event(cudaEvent_t event, cudaStream_t stream) {
  MICROSCHED_CUDA_TRY(cudaEventRecord(event, stream));
}

}  // namespace microsched::detail
