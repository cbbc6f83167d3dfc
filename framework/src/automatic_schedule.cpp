// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/automatic_schedule.hpp"

#include <map>

#include "microsched/error.hpp"

namespace microsched::detail {

namespace {
std::mutex registry_mutex;
//! (key|size class) -> its calibration
std::map<std::string, std::shared_ptr<calibration_state>>& registry() {
  static std::map<std::string, std::shared_ptr<calibration_state>> states;
  return states;
}
}  // namespace

calibration_state::~calibration_state() {
  if (start_event != nullptr) cudaEventDestroy(start_event);
  if (stop_event != nullptr) cudaEventDestroy(stop_event);
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
  float ms = 0;
  MICROSCHED_CUDA_TRY(cudaEventElapsedTime(&ms, start_event, stop_event));
  // A run too short for the events' resolution counts as their resolution (0.5 us).
  tuning.record(candidate, ms > 0 ? static_cast<double>(ms) : 0.0005, pending_tasks);
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

double calibration_state::wait_elapsed() {
  MICROSCHED_CUDA_TRY(cudaEventSynchronize(stop_event));
  float ms = 0;
  MICROSCHED_CUDA_TRY(cudaEventElapsedTime(&ms, start_event, stop_event));
  return ms > 0 ? static_cast<double>(ms) : 0.0005;
}

std::string full_key(const std::string& key, int size_class) {
  return key + "|" + std::to_string(size_class);
}

std::shared_ptr<calibration_state> calibration_for(
    const std::string& key, task_id num_tasks, const std::vector<schedule_arguments>& candidates) {
  const std::string full = full_key(key, size_class(num_tasks));
  std::lock_guard lock(registry_mutex);
  auto& slot = registry()[full];
  if (!slot) slot = std::make_shared<calibration_state>(candidates);
  return slot;
}

std::vector<std::tuple<std::string, int, schedule_arguments>> decided_calibrations() {
  std::vector<std::tuple<std::string, int, schedule_arguments>> out;
  std::lock_guard lock(registry_mutex);
  for (const auto& [full, state] : registry()) {
    std::lock_guard state_lock(state->mutex);
    if (!state->tuning.decided()) continue;
    const auto bar = full.rfind('|');
    out.emplace_back(full.substr(0, bar), std::stoi(full.substr(bar + 1)),
                     state->tuning.candidate(state->tuning.chosen()));
  }
  return out;
}

void seed_calibration(const std::string& key, int size_class, const schedule_arguments& chosen) {
  std::lock_guard lock(registry_mutex);
  auto& slot = registry()[full_key(key, size_class)];
  if (slot) return;  // calibrated in this process already
  slot = std::make_shared<calibration_state>(std::vector<schedule_arguments>{chosen});
  slot->from_file = true;
}

void forget_calibrations() {
  std::lock_guard lock(registry_mutex);
  registry().clear();
}

}  // namespace microsched::detail
