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
      if (state->tuning.decided() && !state->from_file) chosen_here = true;
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

int in_call_plan::shift(task_id tasks) {
  const task_id per_granule = tasks / (task_id{period} * 64);
  return per_granule <= 1 ? 0 : static_cast<int>(std::bit_width(per_granule)) - 1;
}

std::vector<int> in_call_candidates(const std::vector<schedule_arguments>& candidates) {
  const auto find = [&](auto&& match) {
    for (std::size_t i = 1; i < candidates.size(); ++i) {
      if (match(candidates[i])) return static_cast<int>(i);
    }
    return -1;
  };
  std::vector<int> out;
  for (const int i : {find([](const schedule_arguments& s) {
                        return s.strategy == pool_strategy::budgeted && budget_of(s) == 64 &&
                               s.blocks_per_sm == 0;
                      }),
                      find([](const schedule_arguments& s) {
                        return s.strategy == pool_strategy::global && s.chunk == 1;
                      })}) {
    if (i > 0) out.push_back(i);
  }
  return out;
}

std::string automatic_schedule::describe_slices(const calibration& tuning,
                                                const std::vector<int>& who,
                                                const std::vector<double>& per_task,
                                                std::size_t best, task_id n) {
  char buffer[96];
  std::string out = "first call in slices of 1/" + std::to_string(in_call_plan::period) + ":";
  for (std::size_t k = 0; k < per_task.size(); ++k) {
    std::snprintf(buffer, sizeof buffer, " %.3f ms (whole call)",
                  per_task[k] * static_cast<double>(n));
    out += (k == 0 ? " " : "; ") + to_string(tuning.candidate(who[k])) + buffer;
  }
  if (per_task.size() == 1)
    out += " predicts a short call: the rest ran direct";
  else
    out += "; the rest ran " + to_string(tuning.candidate(who[best]));
  return out;
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

double automatic_schedule::elapsed_ms(cudaEvent_t start, cudaEvent_t stop) {
  MICROSCHED_CUDA_TRY(cudaEventSynchronize(stop));
  float ms = 0;
  MICROSCHED_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
  return ms > 0 ? static_cast<double>(ms) : 0.0005;
}

std::string full_key(const std::string& key, int size_class) {
  return key + "|" + std::to_string(size_class);
}

std::shared_ptr<calibration_state> calibration_for(
    const std::string& key, task_id num_tasks, const std::vector<schedule_arguments>& candidates) {
  load_cache_once();
  const std::string full = full_key(key, size_class(num_tasks));
  std::lock_guard lock(registry_mutex);
  auto& slot = registry().states[full];
  if (slot) return slot;
  slot = std::make_shared<calibration_state>(candidates);
  // An earlier process's choice: adopted when it is still a candidate here.
  const auto seed = registry().seeds.find(full);
  if (seed != registry().seeds.end()) {
    for (int i = 0; i < slot->tuning.size(); ++i) {
      if (slot->tuning.candidate(i) == seed->second) {
        slot->tuning.adopt(i);
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
    if (state->tuning.decided()) chosen[full] = state->tuning.candidate(state->tuning.chosen());
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
