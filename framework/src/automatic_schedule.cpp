// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/automatic_schedule.hpp"

#include <bit>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>

#include "microsched/error.hpp"
#include "microsched/schedule/calibration_file.hpp"

namespace microsched::detail {

namespace {
std::mutex registry_mutex;

//! The calibrations of the process, and the choices of earlier processes not yet used here.
//! Saved to the cache when the process exits.
struct process_calibrations {
  std::map<std::string, std::shared_ptr<calibration_state>> states;  //!< (key|class) -> state
  std::map<std::string, schedule_arguments> seeds;  //!< (key|class) -> an earlier choice
  std::string cache_problem;                        //!< why the cache was ignored, if it was
  ~process_calibrations() {
    const auto file = calibration_cache_file();
    bool chosen_here = false;
    for (const auto& [full, state] : states) {
      if (state->choice.decided() && !state->from_file) chosen_here = true;
    }
    if (!file || !chosen_here) return;
    try {
      std::filesystem::create_directories(file->parent_path());
      save_calibrations(*file);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "microsched: calibration cache not saved: %s\n", e.what());
    }
  }
};

process_calibrations& registry() {
  static process_calibrations calibrations;
  return calibrations;
}

//! Loads the cache once per process, before the first size class is created.
void load_cache_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    const auto file = calibration_cache_file();
    if (!file) return;
    std::error_code ec;
    if (!std::filesystem::exists(*file, ec)) return;  // the first process: nothing to say
    const calibration_load loaded = load_calibrations(*file);
    if (!loaded.problem.empty()) {
      std::fprintf(stderr, "microsched: calibration cache ignored: %s\n", loaded.problem.c_str());
      std::lock_guard lock(registry_mutex);
      registry().cache_problem = loaded.problem;
    }
  });
}
}  // namespace

std::string cache_origin() {
  const auto file = calibration_cache_file();
  return file ? file->string() : std::string("a calibration file");
}

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

std::string full_key(const std::string& key, int size_class) {
  return key + "|" + std::to_string(size_class);
}

std::shared_ptr<calibration_state> calibration_for(
    const std::string& key, task_id num_tasks, const std::vector<schedule_arguments>& candidates,
    const calibration_settings& settings) {
  load_cache_once();
  const std::string full = full_key(key, size_class(num_tasks));
  std::lock_guard lock(registry_mutex);
  auto& slot = registry().states[full];
  if (slot) return slot;
  slot = std::make_shared<calibration_state>(candidates, settings);
  // An earlier process's choice: adopted when it is still a candidate here.
  const auto seed = registry().seeds.find(full);
  if (seed != registry().seeds.end()) {
    for (int i = 0; i < slot->choice.size(); ++i) {
      if (slot->choice.candidate(i) == seed->second) {
        slot->choice.adopt(i);
        slot->from_file = true;
        break;
      }
    }
  }
  return slot;
}

std::vector<std::tuple<std::string, int, schedule_arguments>> decided_calibrations() {
  std::vector<std::tuple<std::string, int, schedule_arguments>> out;
  std::lock_guard lock(registry_mutex);
  const auto split = [](const std::string& full) {
    const auto bar = full.rfind('|');
    return std::make_pair(full.substr(0, bar), std::stoi(full.substr(bar + 1)));
  };
  std::map<std::string, schedule_arguments> chosen = registry().seeds;
  for (const auto& [full, state] : registry().states) {
    std::lock_guard state_lock(state->mutex);
    if (state->choice.decided()) chosen[full] = state->choice.candidate(state->choice.chosen());
  }
  for (const auto& [full, schedule] : chosen) {
    const auto [key, size_class] = split(full);
    out.emplace_back(key, size_class, schedule);
  }
  return out;
}

void seed_calibration(const std::string& key, int size_class, const schedule_arguments& chosen) {
  std::lock_guard lock(registry_mutex);
  const std::string full = full_key(key, size_class);
  if (registry().states.count(full) != 0) return;  // calibrated in this process already
  registry().seeds.emplace(full, chosen);          // an earlier seed stays
}

void forget_calibrations() {
  std::lock_guard lock(registry_mutex);
  registry().states.clear();
  registry().seeds.clear();
}

}  // namespace microsched::detail
