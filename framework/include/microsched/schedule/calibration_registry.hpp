// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file calibration_registry.hpp
//! The choices of the process: one calibration state per program, policy, GPU and size class,
//! shared by every scheduler; the managed-branch programs' forms; and the choices an earlier
//! process left in the calibration cache (calibration_file.hpp), loaded once and saved at exit.

#include <memory>
#include <optional>
#include <string>
#include <typeinfo>
#include <vector>

#include "microsched/config.hpp"
#include "microsched/schedule/calibration.hpp"
#include "microsched/schedule/calibration_state.hpp"
#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched::detail {

//! The process-wide state of `key` (program, policy, device) and the size class of `num_tasks`,
//! created with `candidates` on first use.
[[nodiscard]] std::shared_ptr<calibration_state> calibration_for(
    const std::string& key, task_id num_tasks, const std::vector<schedule_arguments>& candidates,
    const calibration_settings& settings = {});

//! The form of a termination scheduler's choice in the cache; a managed-branch program's choice
//! names its march window and order there instead (switching::form_key).
inline constexpr const char* plain_form = "-";

//! One choice as the cache holds it.
struct cached_choice {
  std::string key;  //!< program|policy|device|driver
  int size_class = 0;
  std::string form = plain_form;
  schedule_arguments schedule;
  bool chosen_here = false;  //!< made by this process, not loaded from a file
};

//! Every decided choice of the process, made here or loaded, for save_calibrations().
[[nodiscard]] std::vector<cached_choice> decided_calibrations();

//! Makes `chosen` the choice of its key, size class and form kind unless the process already
//! made one (load_calibrations()).
void seed_calibration(const cached_choice& chosen);

//! The choice of a managed-branch program (a form other than plain_form) for `key` and
//! `size_class` that this process made (chosen_here), else an earlier process's (the cache is
//! loaded first); none when neither exists.
[[nodiscard]] std::optional<cached_choice> earlier_form(const std::string& key, int size_class);

//! Records a managed-branch program's choice made in this process (saved at exit).
void record_form(const cached_choice& chosen);

//! A managed-branch program's choice in progress, shared by every automatic_switching of the
//! process with the same key (program, policy, device, size class, options): the one stored under
//! `key`, else null.
[[nodiscard]] std::shared_ptr<void> find_form_state(const std::string& key);
//! Stores `fresh` under `key` unless another thread stored one first; returns the one stored.
[[nodiscard]] std::shared_ptr<void> shared_form_state(const std::string& key,
                                                      std::shared_ptr<void> fresh);

//! Forgets every calibration of the process (tests); schedulers that exist keep the states they
//! hold.
void forget_calibrations();

//! The device part of a key, "ORDINAL:NAME|driver VERSION": a new driver may compile and schedule
//! differently.
[[nodiscard]] std::string device_key(int ordinal, const std::string& name);

//! Where the choices of earlier processes come from (the cache file), for reports.
[[nodiscard]] std::string cache_origin();

//! The key of a program's choices: its type, `variant` (what else shapes its candidates, e.g. a
//! managed-branch program's task orders; no '|', tab or space), its policy and `device`.
template <class Program, class Policy>
[[nodiscard]] std::string automatic_key(const std::string& device,
                                        const std::string& variant = {}) {
  std::string key(typeid(Program).name());
  key.append(variant).append("|").append(typeid(Policy).name()).append("|").append(device);
  return key;
}

}  // namespace microsched::detail
