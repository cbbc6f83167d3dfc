// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file automatic_switching.cuh
//! The automatic schedule of a managed-branch program: times its forms (branch_forms.hpp: the
//! direct mapping at several march windows and task orders, the form a hand-tuned vanilla kernel
//! takes, and context switching on task pools) on the first runs of a size class and keeps the
//! fastest, a switching form only when it beats the fastest direct form beyond noise. A choice,
//! made or in progress, belongs to the process (every object of the program and options shares
//! it) and goes to the calibration cache (schedule/calibration_file.hpp), so a later process
//! starts decided.

#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "microsched/device.hpp"
#include "microsched/error.hpp"
#include "microsched/policy/switching_policy.cuh"
#include "microsched/schedule/calibration_registry.hpp"
#include "microsched/scheduler.cuh"
#include "microsched/switching/branch_forms.hpp"
#include "microsched/switching/form_calibration.hpp"
#include "microsched/switching/form_report.hpp"

namespace microsched::switching {

template <class Program, class Policy = switching_policy<>>
class automatic_switching {
 public:
  automatic_switching() : automatic_switching(branch_form_options{}) {}
  //! Throws std::invalid_argument for bad options.
  explicit automatic_switching(const branch_form_options& options) : options_(options) {
    validate(options_);
  }
  automatic_switching(const automatic_switching&) = delete;
  automatic_switching& operator=(const automatic_switching&) = delete;
  ~automatic_switching() = default;

  //! Runs every task in [0, num_tasks) once. While the choice for this size class (tasks in
  //! [2^(k-1), 2^k), as the termination scheduler's) is open the run is one timed run of the
  //! next form (waited for); each size class keeps its own choice, shared with every object of
  //! the process with the same program, policy, options and task orders on the same device (the
  //! cache on). A size class an earlier process decided (the calibration cache) starts with its
  //! choice: a direct form as it is, a switching form after two timed runs of it and two of the
  //! direct form it beat, and a choice made again where it no longer wins. Once decided, a run
  //! is timed now and then (read on a later call, with no wait): a choice whose time drifts
  //! (branch_form_options::drift) is checked against its rival and made again where it no
  //! longer wins.
  void run(const Program& program, task_id num_tasks, cudaStream_t stream = nullptr) {
    if (num_tasks == 0) return;
    select(program, num_tasks);
    const std::lock_guard lock(cur_->mutex);  // the choice may be shared with other threads
    if (cur_->chosen >= 0) {
      run_chosen(program, num_tasks, stream);
      return;
    }
    time_next(program, num_tasks, stream);
  }

  //! Runs the program until the choice for this size is made (every run processes every task:
  //! for benchmarks and warm-ups, where running the tasks again is harmless), then waits.
  void calibrate(const Program& program, task_id num_tasks, cudaStream_t stream = nullptr) {
    if (num_tasks == 0) return;
    select(program, num_tasks);
    const std::lock_guard lock(cur_->mutex);
    while (cur_->chosen < 0) time_next(program, num_tasks, stream);
    MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
  }

  //! Of the size class run last (nothing before the first run).
  [[nodiscard]] bool decided() const {
    if (cur_ == nullptr) return false;
    const std::lock_guard lock(cur_->mutex);
    return cur_->chosen >= 0;
  }
  [[nodiscard]] const std::vector<branch_form>& forms() const {
    static const std::vector<branch_form> none;
    return cur_ != nullptr ? cur_->forms : none;
  }
  //! The chosen form; throws std::logic_error before the choice.
  [[nodiscard]] const branch_form& choice() const {
    const int chosen = cur_ != nullptr ? chosen_now(*cur_) : -1;
    if (chosen < 0) throw std::logic_error("automatic switching: no choice made yet");
    return cur_->forms[static_cast<std::size_t>(chosen)];  // the list never changes
  }
  //! The form the next run of `num_tasks` tasks launches (timed while the choice is open; a form
  //! that cannot run here is skipped when its turn comes), where its size class has run: the
  //! state run last if it is of that size class, else the first of it (by device and task
  //! orders); none before its first run.
  [[nodiscard]] std::optional<branch_form> next_form(task_id num_tasks) const {
    const int k = size_class(num_tasks);
    const size_state* found = cur_ != nullptr && cur_->size_class == k ? cur_ : nullptr;
    for (auto it = states_.begin(); found == nullptr && it != states_.end(); ++it) {
      if (std::get<1>(it->first) == k) found = it->second.get();
    }
    if (found == nullptr) return std::nullopt;
    const size_state& c = *found;
    const std::lock_guard lock(c.mutex);
    const int form = c.chosen >= 0 ? c.chosen : c.upcoming();
    if (form < 0) return std::nullopt;
    return c.forms[static_cast<std::size_t>(form)];
  }
  //! The choice comes from the calibration cache, or from an automatic_switching of this process
  //! with other options (kept as it is, or being checked, or checked).
  [[nodiscard]] bool from_cache() const {
    if (cur_ == nullptr) return false;
    const std::lock_guard lock(cur_->mutex);
    return cur_->from_cache;
  }
  //! The fastest direct form timed (the rule's reference); throws std::logic_error before the
  //! choice, or where a direct choice came from the cache (nothing timed).
  [[nodiscard]] const branch_form& best_direct() const {
    if (cur_ == nullptr) throw std::logic_error("automatic switching: no choice made yet");
    const std::lock_guard lock(cur_->mutex);
    const int d = cur_->chosen >= 0 ? fastest_direct(cur_->forms, cur_->best_ms) : -1;
    if (d < 0) {
      throw std::logic_error(cur_->chosen >= 0 && cur_->from_cache
                                 ? "automatic switching: no form was timed; the choice came from "
                                   "the calibration cache"
                                 : "automatic switching: no choice made yet");
    }
    return cur_->forms[static_cast<std::size_t>(d)];
  }
  //! GPU time of the size class's timed runs so far (what its choice cost, useful work included).
  [[nodiscard]] double calibration_ms() const {
    if (cur_ == nullptr) return 0;
    const std::lock_guard lock(cur_->mutex);
    return cur_->calibration_ms;
  }

  //! The size class run last: the choice and its reference, what the choice cost, and each
  //! form's time; where the choice comes from the cache, that it does and how it was checked.
  [[nodiscard]] std::string report() const {
    if (cur_ == nullptr) return "automatic switching: not run yet";
    const std::lock_guard lock(cur_->mutex);
    return form_report(*cur_, form_name<Program>, detail::cache_origin());
  }

 private:
  using sched_t = scheduler<Program, Policy>;

  //! One size class's choice, the cache's key for it (the device at its start), the lock of
  //! the objects that share it, and its timed run: the events, and the form, task count and
  //! check a run not yet read was timed for.
  struct size_state : form_calibration {
    using form_calibration::form_calibration;
    size_state(const size_state&) = delete;
    size_state& operator=(const size_state&) = delete;
    ~size_state() {
      if (start != nullptr) cudaEventDestroy(start);
      if (stop != nullptr) cudaEventDestroy(stop);
    }
    int size_class = 0;
    std::string key;
    mutable std::mutex mutex;
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
    int pending_form = -1;  //!< -1: no timed run waits to be read
    task_id pending_tasks = 0;
    int pending_check = 0;  //!< rechecks when it was timed: a later check makes it stale
  };

  [[nodiscard]] static int chosen_now(const size_state& c) {
    const std::lock_guard lock(c.mutex);
    return c.chosen;
  }

  //! Makes the size class of `num_tasks` on the current device, with the program's task orders
  //! (which shape the forms), the current one, joining the process's choice for it or starting
  //! one on first use (a start that throws leaves no size class behind).
  void select(const Program& program, task_id num_tasks) {
    int device = 0;
    MICROSCHED_CUDA_TRY(cudaGetDevice(&device));
    state_key where{device, size_class(num_tasks), available_orders(program)};
    const auto found = states_.find(where);
    cur_ = nullptr;  // a start that throws leaves no class current either
    if (found != states_.end()) {
      cur_ = found->second.get();
      return;
    }
    auto state = join(program, std::get<1>(where), std::get<2>(where));
    cur_ = states_.emplace(std::move(where), std::move(state)).first->second.get();
  }

  //! The process's choice for size class `k` and these task orders where the cache is on (a
  //! harness that asks for no cache chooses alone), else a new one. The orders are part of the
  //! cache's key: another image size of the ray caster offers other tile orders.
  [[nodiscard]] std::shared_ptr<size_state> join(const Program& program, int k,
                                                 const std::vector<int>& orders) {
    if (!options_.cache) return start(program, k, std::string());
    const device_info d = current_device();
    std::string variant;
    for (const int o : orders)
      variant.append(variant.empty() ? "#orders:" : ",").append(std::to_string(o));
    const std::string key =
        detail::automatic_key<Program, Policy>(detail::device_key(d.ordinal, d.name), variant);
    const std::string shared = key + "|" + std::to_string(k) + "|" + options_text(options_);
    if (auto found = detail::find_form_state(shared)) {
      return std::static_pointer_cast<size_state>(found);
    }
    return std::static_pointer_cast<size_state>(
        detail::shared_form_state(shared, start(program, k, key)));
  }

  [[nodiscard]] std::shared_ptr<size_state> start(const Program& program, int k,
                                                  const std::string& key) {
    auto c = std::make_shared<size_state>(
        branch_forms(windowed_program<Program>, available_orders(program), options_));
    c->size_class = k;
    c->key = key;
    MICROSCHED_CUDA_TRY(cudaEventCreate(&c->start));
    MICROSCHED_CUDA_TRY(cudaEventCreate(&c->stop));
    if (!key.empty()) adopt_cached(*c);
    return c;
  }

  //! Starts from an earlier process's choice where the cache holds one that is still a candidate
  //! and can run here: a direct form is kept; a switching form is timed first (round 0) against
  //! the direct form it beat, since other data of the same program may not favour it.
  void adopt_cached(size_state& c) {
    const auto earlier = detail::earlier_form(c.key, c.size_class);
    if (!earlier) return;
    const cached_form found = find_cached_form(c.forms, earlier->form, earlier->schedule);
    if (found.choice < 0) return;
    try {
      (void)scheduler_for(c.forms[static_cast<std::size_t>(found.choice)].schedule);
    } catch (const std::invalid_argument&) {  // a pool that no longer fits: choose again
      return;
    }
    c.adopt(found.choice, found.reference);
    c.cached_here = earlier->chosen_here;
  }

  //! The scheduler of a form's schedule, made on first use (one per distinct schedule).
  sched_t& scheduler_for(const schedule_arguments& s) {
    for (std::size_t i = 0; i < schedules_.size(); ++i) {
      if (schedules_[i] == s) return *schedulers_[i];
    }
    schedulers_.push_back(std::make_unique<sched_t>(s));
    schedules_.push_back(s);
    return *schedulers_.back();
  }

  void launch(std::size_t form, const Program& program, task_id num_tasks, cudaStream_t stream) {
    const branch_form& f = cur_->forms[form];
    scheduler_for(f.schedule).run(program_for(program, f), num_tasks, stream);
  }

  //! A decided choice's run, timed at the termination scheduler's cadence
  //! (form_calibration::next_run_timed), its events read on a later call where done; a drift
  //! starts a check at once.
  void run_chosen(const Program& program, task_id num_tasks, cudaStream_t stream) {
    size_state& c = *cur_;
    if (c.pending_form >= 0 && read_pending(c) && c.chosen < 0) {
      time_next(program, num_tasks, stream);  // the drift check's first run
      return;
    }
    if (c.pending_form >= 0 || !c.next_run_timed()) {
      launch(static_cast<std::size_t>(c.chosen), program, num_tasks, stream);
      return;
    }
    MICROSCHED_CUDA_TRY(cudaEventRecord(c.start, stream));
    launch(static_cast<std::size_t>(c.chosen), program, num_tasks, stream);
    MICROSCHED_CUDA_TRY(cudaEventRecord(c.stop, stream));
    c.pending_form = c.chosen;
    c.pending_tasks = num_tasks;
    c.pending_check = c.rechecks;
  }

  //! Reads the pending timed run into `c` (form_calibration::observe) where its events are done,
  //! unless a check since has made it stale; false while it runs.
  bool read_pending(size_state& c) {
    const cudaError_t done = cudaEventQuery(c.stop);
    if (done == cudaErrorNotReady) return false;
    MICROSCHED_CUDA_TRY(done);
    float ms = 0;
    MICROSCHED_CUDA_TRY(cudaEventElapsedTime(&ms, c.start, c.stop));
    const bool current = c.pending_form == c.chosen && c.pending_check == c.rechecks;
    c.pending_form = -1;
    if (current) (void)c.observe(ms, c.pending_tasks, options_);
    return true;
  }

  //! One timed run of the form whose turn it is (waited for), or the choice where the last
  //! round has just made it; a form that cannot run here is marked and skipped.
  void time_next(const Program& program, task_id num_tasks, cudaStream_t stream) {
    size_state& c = *cur_;
    c.pending_form = -1;  // its events are taken over
    int form = -1;
    while (form < 0) {
      if (c.round_done()) end_round(c);
      if (c.chosen >= 0) {  // the last round ended without a run left: run the choice
        launch(static_cast<std::size_t>(c.chosen), program, num_tasks, stream);
        return;
      }
      form = c.take();
      if (form < 0) continue;
      try {
        (void)scheduler_for(c.forms[static_cast<std::size_t>(form)].schedule);
      } catch (const std::invalid_argument& e) {  // a pool that does not fit this GPU
        c.fail(form, e.what());
        form = -1;
      }
    }
    MICROSCHED_CUDA_TRY(cudaEventRecord(c.start, stream));
    launch(static_cast<std::size_t>(form), program, num_tasks, stream);
    MICROSCHED_CUDA_TRY(cudaEventRecord(c.stop, stream));
    MICROSCHED_CUDA_TRY(cudaEventSynchronize(c.stop));
    float ms = 0;
    MICROSCHED_CUDA_TRY(cudaEventElapsedTime(&ms, c.start, c.stop));
    c.record(form, ms, num_tasks);
    if (c.round_done()) end_round(c);
  }

  //! Ends a round (form_calibration::next_round) and puts a new choice in the cache.
  void end_round(size_state& c) const {
    if (!c.next_round(options_) || !options_.cache) return;
    detail::cached_choice chosen;
    chosen.key = c.key;
    chosen.size_class = c.size_class;
    chosen.form = c.cache_text();
    chosen.schedule = c.forms[static_cast<std::size_t>(c.chosen)].schedule;
    detail::record_form(chosen);
  }

  branch_form_options options_;
  using state_key = std::tuple<int, int, std::vector<int>>;  //!< device, size class, orders
  std::map<state_key, std::shared_ptr<size_state>> states_;
  size_state* cur_ = nullptr;  //!< the size class run last
  std::vector<schedule_arguments> schedules_;
  std::vector<std::unique_ptr<sched_t>> schedulers_;
};

}  // namespace microsched::switching
