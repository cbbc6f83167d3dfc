// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/calibration_registry.hpp"

#include <algorithm>
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
  std::map<std::string, schedule_arguments> seeds;           //!< (key|class) -> an earlier choice
  std::map<std::string, cached_choice> chosen_forms;         //!< (key|class) -> a form chosen here
  std::map<std::string, cached_choice> form_seeds;           //!< (key|class) -> an earlier form
  std::map<std::string, std::shared_ptr<void>> form_states;  //!< a form choice in progress
  ~process_calibrations() {
    try {
      const auto file = calibration_cache_file();
      if (!file || !chose_something()) return;
      std::filesystem::create_directories(file->parent_path());
      merge_calibrations(*file);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "microsched: calibration cache not saved: %s\n", e.what());
    }
  }
  [[nodiscard]] static bool chose_something() {
    const auto all = decided_calibrations();
    return std::any_of(all.begin(), all.end(),
                       [](const cached_choice& c) { return c.chosen_here; });
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
    }
  });
}

std::string full_key(const std::string& key, int size_class) {
  return key + "|" + std::to_string(size_class);
}
}  // namespace

std::string cache_origin() {
  const auto file = calibration_cache_file();
  return file ? file->string() : std::string("a calibration file");
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
        slot->adopted = i;
        break;
      }
    }
  }
  return slot;
}

std::vector<cached_choice> decided_calibrations() {
  std::vector<cached_choice> out;
  std::lock_guard lock(registry_mutex);
  const auto split = [](const std::string& full) {
    const auto bar = full.rfind('|');
    return std::make_pair(full.substr(0, bar), std::stoi(full.substr(bar + 1)));
  };
  std::map<std::string, std::pair<schedule_arguments, bool>> chosen;  // (key|class) -> choice, here
  for (const auto& [full, seed] : registry().seeds) chosen[full] = {seed, false};
  for (const auto& [full, state] : registry().states) {
    std::lock_guard state_lock(state->mutex);
    if (!state->choice.decided()) continue;
    chosen[full] = {state->choice.candidate(state->choice.chosen()), !state->from_file()};
  }
  for (const auto& [full, choice] : chosen) {
    const auto [key, size_class] = split(full);
    out.push_back({key, size_class, plain_form, choice.first, choice.second});
  }
  std::map<std::string, cached_choice> forms = registry().form_seeds;
  for (const auto& [full, form] : registry().chosen_forms) forms[full] = form;
  for (const auto& [full, form] : forms) out.push_back(form);
  return out;
}

void seed_calibration(const cached_choice& chosen) {
  std::lock_guard lock(registry_mutex);
  const std::string full = full_key(chosen.key, chosen.size_class);
  if (chosen.form != plain_form) {
    if (registry().chosen_forms.count(full) == 0) registry().form_seeds.emplace(full, chosen);
    return;
  }
  if (registry().states.count(full) != 0) return;   // this process's state decides for itself
  registry().seeds.emplace(full, chosen.schedule);  // an earlier seed stays
}

std::optional<cached_choice> earlier_form(const std::string& key, int size_class) {
  load_cache_once();
  std::lock_guard lock(registry_mutex);
  const std::string full = full_key(key, size_class);
  for (const auto* choices : {&registry().chosen_forms, &registry().form_seeds}) {
    const auto found = choices->find(full);
    if (found != choices->end()) return found->second;
  }
  return std::nullopt;
}

void record_form(const cached_choice& chosen) {
  std::lock_guard lock(registry_mutex);
  cached_choice made = chosen;
  made.chosen_here = true;
  registry().chosen_forms[full_key(chosen.key, chosen.size_class)] = made;
}

std::shared_ptr<void> shared_form_state(const std::string& key, std::shared_ptr<void> fresh) {
  std::lock_guard lock(registry_mutex);
  auto& slot = registry().form_states[key];
  if (!slot) slot = std::move(fresh);
  return slot;
}

std::shared_ptr<void> find_form_state(const std::string& key) {
  std::lock_guard lock(registry_mutex);
  const auto found = registry().form_states.find(key);
  return found != registry().form_states.end() ? found->second : nullptr;
}

void forget_calibrations() {
  std::lock_guard lock(registry_mutex);
  registry().states.clear();
  registry().form_states.clear();
  registry().seeds.clear();
  registry().chosen_forms.clear();
  registry().form_seeds.clear();
}

std::string device_key(int ordinal, const std::string& name) {
  int driver = 0;
  MICROSCHED_CUDA_TRY(cudaDriverGetVersion(&driver));
  return std::to_string(ordinal) + ":" + name + "|driver " + std::to_string(driver);
}

}  // namespace microsched::detail
