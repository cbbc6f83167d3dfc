// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file automatic_schedule.hpp
//! The state behind pool_strategy::automatic: one calibration (calibration.hpp) per program,
//! policy, GPU and problem size class, shared by every scheduler of the process, so the cost is
//! paid once. A run either launches the chosen schedule or times the next candidate with a pair
//! of CUDA events, which the next run of that class reads.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "microsched/config.hpp"
#include "microsched/index/task_slice.hpp"
#include "microsched/schedule/calibration.hpp"
#include "microsched/schedule/calibration_registry.hpp"
#include "microsched/schedule/calibration_state.hpp"
#include "microsched/schedule/call_following.hpp"
#include "microsched/schedule/schedule_arguments.hpp"
#include "microsched/schedule/step_counts.hpp"

namespace microsched::detail {

//! How the first call of a size class is cut: the range in granules over `period` residues;
//! residue 0 runs direct and counts its steps (step_counts), the rest runs what the counts
//! predict (predict()). Calls of fewer than `least_tasks` tasks are not cut (a slice would not
//! fill the GPU), nor calls of more than `most_tasks`; where the counted slice's time predicts
//! less than `predict_from_ms` for the whole call, the rest runs direct and later calls calibrate
//! as usual.
struct in_call_plan {
  //! A slice lasts about as long as its longest task, whatever its size: a thin one costs less.
  static constexpr std::uint32_t period = 64;
  static constexpr task_id least_tasks = task_id{1} << 20;
  //! Slices take 32-bit ids (the direct and budgeted kernels' narrow form).
  static constexpr task_id most_tasks = task_id{1} << 31;
  //! A thin slice's fixed costs and tail make period x its time overstate the call.
  static constexpr double predict_from_ms = 2.0;
  //! Granules of 2^shift tasks, at least 64 per residue.
  [[nodiscard]] static int shift(task_id tasks);
};

//! The candidate that stands for `form` (budgeted: budget 64 on the automatic grid; pooled:
//! private pools of one task; ranged: the first warp_range candidate), or 0 (direct) where the
//! list has none.
[[nodiscard]] int candidate_for(predicted_form form,
                                const std::vector<schedule_arguments>& candidates);

class automatic_schedule {
 public:
  //! `in_call`: the first call of a size class may be cut into slices (run_in_slices).
  //! `follows`: a size class kept on direct for its short calls may follow its calls
  //! (run_following): the scheduler launches the signalled direct kernel and the budgeted form.
  //! `follow_warm(budgeted, num_tasks)`, called when a size class starts to be followed, returns
  //! the work that the thread registering the signal's page runs after it: loading the kernels a
  //! followed call launches and allocating what its first budgeted run needs (thread-safe CUDA
  //! calls only; it must not throw).
  void configure(
      std::string key, std::vector<schedule_arguments> candidates, bool in_call, bool follows,
      std::function<std::function<void()>(const schedule_arguments&, task_id)> follow_warm = {}) {
    follow_warm_ = std::move(follow_warm);
    key_ = std::move(key);
    candidates_ = std::move(candidates);
    in_call_ = in_call;
    follows_ = follows && candidate_for(predicted_form::budgeted, candidates_) > 0;
  }

  //! What a timed run costs its caller (calibration_settings::timed_cost_ms), for the size
  //! classes this scheduler creates from now on.
  void set_timed_run_cost(double ms) { settings_.timed_cost_ms = ms; }

  //! Whether the next run of this size class launches the choice untimed (run_untimed).
  [[nodiscard]] bool holds_untimed_run(task_id num_tasks) const {
    return fast_.runs > 0 && fast_.size_class == size_class(num_tasks);
  }

  //! Does not wait for a timed run in flight (its time is read later).
  [[nodiscard]] schedule_arguments schedule_for(task_id num_tasks) const {
    const auto state = state_for(num_tasks);
    std::lock_guard lock(state->mutex);
    (void)state->collect(false);
    return state->choice.candidate(state->choice.next());
  }

  //! The choice for this size class is made and checked (calibration::settled; reads a pending
  //! measurement first).
  [[nodiscard]] bool settled(task_id num_tasks) const {
    const auto state = state_for(num_tasks);
    std::lock_guard lock(state->mutex);
    state->collect();
    return state->choice.settled();
  }

  //! The choice for this size class is made (reads a pending measurement first).
  [[nodiscard]] bool decided(task_id num_tasks) const {
    const auto state = state_for(num_tasks);
    std::lock_guard lock(state->mutex);
    state->collect();
    return state->choice.decided();
  }

  [[nodiscard]] std::string report(task_id num_tasks) const {
    const auto state = state_for(num_tasks);
    std::lock_guard lock(state->mutex);
    state->collect();
    std::string out = "automatic: " + state->choice.report();
    if (state->from_file()) out += " [chosen by an earlier process: " + cache_origin() + "]";
    if (!state->in_call.empty()) out += " [" + state->in_call + "]";
    const std::string followed = follow_.report(size_class(num_tasks));
    if (!followed.empty()) out += " [" + followed + "]";
    return out;
  }

  //! Runs the choice through `launch(schedule)` when this scheduler holds untimed runs of this
  //! size class (taken from the calibration after an untimed run); false, launching nothing,
  //! otherwise. Touches no shared state: a decided call costs what a fixed schedule's does.
  template <class Launch>
  bool run_untimed(task_id num_tasks, Launch&& launch) {
    if (fast_.runs == 0 || fast_.size_class != size_class(num_tasks)) return false;
    --fast_.runs;
    launch(fast_.chosen);
    return true;
  }

  //! A size class this scheduler follows (call_following): runs the call through
  //! `signalled(slots, tag, count_steps)` (the direct form, which returns its signal's layout),
  //! `launch(direct)` on a quiet call, or `launch(budgeted)`, after `prepare(budgeted, false)`
  //! once; false, launching nothing, where it does not follow this size class (or stops now: the
  //! calls grew long, and the size class calibrates again). Before the launch it reads only the
  //! previous call's signal: the shared state is checked after it, while the kernel runs, since
  //! an application's work between calls leaves the host's caches cold and each line the call
  //! touches first costs its caller.
  template <class Signalled, class Launch, class Prepare>
  bool run_following(task_id num_tasks, cudaStream_t stream, Signalled&& signalled, Launch&& launch,
                     Prepare&& prepare) {
    if (!follow_.active_for(size_class(num_tasks))) return false;
    follow_.collect();
    if (follow_.wants_calibration()) {
      const auto state = state_for(num_tasks);
      std::lock_guard lock(state->mutex);
      fast_.runs = 0;
      if (!state->choice.kept_for_short_calls()) {
        follow_.stop("the size class calibrated again");
        return false;
      }
      follow_.stop("calibrated again: long calls it did not take");
      state->choice.restart();
      return false;
    }
    const schedule_arguments& budgeted = candidates_[static_cast<std::size_t>(follow_.budgeted())];
    if (!follow_.run(
            stream, signalled, [&] { launch(budgeted); }, [&] { launch(candidates_.front()); },
            [&] { prepare(budgeted, false); })) {
      return false;
    }
    // The size class may have moved on (calibrate() restarts a drifted choice, another
    // scheduler's drift): its calibration runs from the next call, and a calibrate() loop settles.
    const auto state = state_for(num_tasks);
    std::lock_guard lock(state->mutex);
    if (!state->choice.kept_for_short_calls()) {
      follow_.stop("the size class calibrated again");
      fast_.runs = 0;
    }
    return true;
  }

  //! Launches through `launch(schedule)`: the chosen schedule, or the next candidate, timed. A
  //! candidate that throws std::invalid_argument (it cannot launch here) is dropped with the
  //! reason and the direct mapping runs instead. The first call of a size class of at least
  //! in_call_plan::least_tasks tasks runs in slices through `launch_slice(schedule, slice)`
  //! (run_in_slices). `prepare(schedule, slices)` makes ready what a run of `schedule` needs
  //! (its kernels, its memory; `slices`: the slice kernels) before the events of a timed run, so
  //! that only timed runs pay it and no timed run holds it.
  template <class Launch, class LaunchSlice, class Prepare>
  void run(task_id num_tasks, cudaStream_t stream, Launch&& launch, LaunchSlice&& launch_slice,
           Prepare&& prepare) {
    const auto state = state_for(num_tasks);
    std::lock_guard lock(state->mutex);
    calibration& choice = state->choice;
    if (in_call_ && state->fresh() && num_tasks >= in_call_plan::least_tasks &&
        num_tasks <= in_call_plan::most_tasks) {
      run_in_slices(*state, num_tasks, stream, launch_slice, prepare);
      return;
    }
    // Calibrating: wait for the previous timed run, whose time decides what runs next.
    if (!choice.decided()) (void)state->collect();
    start_following(*state, num_tasks);
    // Decided: never block the host, and put no event before most launches. A timed run in
    // flight is read after this launch, while the kernel runs.
    const bool timed = state->pending < 0 && choice.next_run_timed();
    if (!timed) {
      launch(choice.candidate(choice.chosen()));
      (void)state->collect(false);
      if (state->pending < 0) {  // nothing left to read: the next untimed runs need no lock
        const int runs = choice.take_untimed_runs();  // 0 unless decided with nothing to check
        if (runs > 0) fast_ = {size_class(num_tasks), runs, choice.candidate(choice.chosen())};
      }
      return;
    }
    const int candidate = choice.next();
    prepare(choice.candidate(candidate), false);
    state->start(candidate, num_tasks, stream);
    try {
      launch(choice.candidate(candidate));
    } catch (const std::invalid_argument& e) {
      state->pending = -1;
      if (choice.decided()) throw;  // the chosen schedule itself cannot run: the caller's error
      choice.fail(candidate, e.what());
      launch(choice.candidate(0));
      return;
    } catch (...) {
      state->pending = -1;  // no stop event follows: nothing to read at the next run
      throw;
    }
    state->stop(stream);
  }

  //! Once decided: times `runs` runs of the choice through `launch(schedule)`, each waited for,
  //! and restarts the calibration if the fastest is off its calibrated time
  //! (calibration::recalibrate_if_drifted).
  template <class Launch>
  void recalibrate_if_drifted(task_id num_tasks, cudaStream_t stream, Launch&& launch, int runs) {
    fast_.runs = 0;  // the check may restart the calibration
    const auto state = state_for(num_tasks);
    std::lock_guard lock(state->mutex);
    (void)state->collect();
    calibration& choice = state->choice;
    if (!choice.decided()) return;
    double fastest = 0;
    for (int r = 0; r < runs; ++r) {
      const double ms = state->time_run(stream, [&] { launch(choice.candidate(choice.chosen())); });
      fastest = r == 0 ? ms : std::min(fastest, ms);
    }
    if (runs > 0) choice.recalibrate_if_drifted(fastest, num_tasks);
  }

 private:
  //! The first call of a size class, cut into interleaved slices (in_call_plan): the first
  //! runs direct and counts its steps; if the call is long, the rest runs what the counts
  //! predict, which the size class adopts (calibration::adopt, verified against direct at the
  //! next calls). Every task runs once: the slices partition the range.
  template <class LaunchSlice, class Prepare>
  void run_in_slices(calibration_state& state, task_id n, cudaStream_t stream,
                     LaunchSlice& launch_slice, Prepare& prepare) {
    calibration& choice = state.choice;
    const int shift = in_call_plan::shift(n);
    const task_slice first = task_slice::residues(n, shift, in_call_plan::period, 0, 1);
    const task_slice rest =
        task_slice::residues(n, shift, in_call_plan::period, 1, in_call_plan::period);
    const auto events = ensure_slice_events(state, 2);
    step_counts* counts = ensure_counts(state, stream);
    prepare(choice.candidate(0), true);  // a kernel loads before its events, not inside them
    record_event(events[0], stream);
    launch_slice(choice.candidate(0), first, counts);
    record_event(events[1], stream);
    const double whole_ms = elapsed_run_ms(events[0], events[1]) * static_cast<double>(n) /
                            static_cast<double>(first.size());
    const step_counts seen = read_counts(counts);
    const predicted_form form = predict(seen, first.size());
    int chosen = whole_ms >= in_call_plan::predict_from_ms ? candidate_for(form, candidates_) : 0;
    if (chosen != 0) {
      try {
        launch_slice(choice.candidate(chosen), rest, nullptr);
      } catch (const std::invalid_argument& e) {
        choice.fail(chosen, e.what());
        chosen = 0;
      }
    }
    if (chosen == 0) launch_slice(choice.candidate(0), rest, nullptr);
    state.in_call = describe_first_call(choice, seen, first.size(), whole_ms, chosen);
    if (chosen != 0) choice.adopt(chosen, 0, n, true);
  }

  //! From the next call on, follows a size class that direct holds for its short calls.
  void start_following(const calibration_state& state, task_id num_tasks) {
    const calibration& choice = state.choice;
    const int k = size_class(num_tasks);
    if (!follows_ || follow_.active_for(k) || !narrow_ids(num_tasks) ||
        !choice.kept_for_short_calls()) {
      return;
    }
    const int budgeted = candidate_for(predicted_form::budgeted, candidates_);
    const schedule_arguments& form = candidates_[static_cast<std::size_t>(budgeted)];
    follow_.start(k, budgeted,
                  follow_warm_ ? follow_warm_(form, num_tasks) : std::function<void()>{});
  }

  [[nodiscard]] static std::string describe_first_call(const calibration& choice,
                                                       const step_counts& seen, task_id tasks,
                                                       double whole_ms, int chosen);
  [[nodiscard]] static step_counts* ensure_counts(calibration_state& state, cudaStream_t stream);
  [[nodiscard]] static step_counts read_counts(const step_counts* counts);

  [[nodiscard]] static std::vector<cudaEvent_t> ensure_slice_events(calibration_state& state,
                                                                    std::size_t count);
  static void record_event(cudaEvent_t event, cudaStream_t stream);
  //! The shared state of this size class, looked up in the registry once per scheduler.
  [[nodiscard]] std::shared_ptr<calibration_state> state_for(task_id num_tasks) const {
    const int k = size_class(num_tasks);
    auto& slot = states_[k];
    if (!slot) slot = calibration_for(key_, num_tasks, candidates_, settings_);
    return slot;
  }

  //! Untimed runs of one size class this scheduler may launch without the shared state.
  struct untimed_runs {
    int size_class = -1;
    int runs = 0;
    schedule_arguments chosen;
  };

  std::string key_;
  std::vector<schedule_arguments> candidates_;
  calibration_settings settings_;  //!< for the size classes this scheduler creates
  bool in_call_ = false;
  bool follows_ = false;
  std::function<std::function<void()>(const schedule_arguments&, task_id)> follow_warm_;
  untimed_runs fast_;
  call_following follow_;
  mutable std::map<int, std::shared_ptr<calibration_state>> states_;  //!< (size class) -> state
};

}  // namespace microsched::detail
