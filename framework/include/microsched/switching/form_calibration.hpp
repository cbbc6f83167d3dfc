// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file form_calibration.hpp
//! One size class's choice among a managed-branch program's forms (automatic_switching.cuh): the
//! form each timed run takes, the times, and the rounds that decide. Host logic, tested on the
//! CPU with scripted times.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "microsched/schedule/calibration.hpp"
#include "microsched/switching/branch_forms.hpp"

namespace microsched::switching {

struct form_calibration {
  //! A fresh choice over `list`: round one times every form once, then again those that may
  //! still win (second_pass()), and keeps each form's faster run.
  explicit form_calibration(std::vector<branch_form> list) : forms(std::move(list)) {
    best_ms.assign(forms.size(), -1.0);
    samples.assign(forms.size(), {});
    failed.assign(forms.size(), std::string());
    cold.assign(forms.size(), false);
    queue_every_form();
  }

  //! Starts from a cached choice: kept as it is where `reference` is -1 (a direct form); else
  //! round zero times it twice and `reference`, the direct form it beat, twice, since the
  //! program's data may have changed since.
  void adopt(int choice, int reference) {
    from_cache = true;
    queue.clear();
    next = 0;
    if (reference < 0) {
      chosen = choice;
      return;
    }
    round = 0;
    queue = {choice, choice, reference, reference};
  }

  //! The form the next timed run takes, skipping those that failed; -1 where the round's queue
  //! is spent (next_round() then ends it).
  [[nodiscard]] int upcoming() const {
    for (std::size_t i = next; i < queue.size(); ++i) {
      if (failed[static_cast<std::size_t>(queue[i])].empty()) return queue[i];
    }
    return -1;
  }
  //! Takes upcoming() off the queue.
  int take() {
    while (next < queue.size()) {
      const int form = queue[next++];
      if (failed[static_cast<std::size_t>(form)].empty()) return form;
    }
    return -1;
  }
  [[nodiscard]] bool round_done() const { return chosen < 0 && upcoming() < 0; }

  //! Once decided: whether this run of the choice is timed, at the termination scheduler's
  //! cadence (calibration::timed_every's rule, with its settings): never the first run after the
  //! choice (it may load its kernels), then one run in timed_every(); a run right after one that
  //! was off is timed to confirm it.
  [[nodiscard]] bool next_run_timed(const calibration_settings& s = {}) {
    if (chosen < 0) return false;
    if (!confirm && ++untimed < (reference_ms > 0 ? timed_every(s) : 2)) return false;
    untimed = 0;
    confirm = false;
    return true;
  }
  //! Runs per timed run of the choice: its events' cost stays at most `timed_share` of its time,
  //! within [calibration::least_timed_every, most_timed_every].
  [[nodiscard]] int timed_every(const calibration_settings& s = {}) const {
    return calibration::timed_every_for(reference_ms, s);
  }

  //! Once decided: a timed run of the choice on `tasks` tasks (compared per task: a size class
  //! spans twice the tasks). Two runs in a row off the reference by the drift factor (longer or
  //! shorter) and the floor start a check (recheck()); true when one starts. A choice with no
  //! time yet (a cached direct form) takes its first reading as the reference.
  bool observe(double ms, std::uint64_t tasks, const branch_form_options& o) {
    if (chosen < 0 || tasks == 0 || !(ms > 0)) return false;
    if (!(reference_ms > 0)) {
      reference_ms = ms;
      reference_tasks = tasks;
      return false;
    }
    ms *= static_cast<double>(reference_tasks) / static_cast<double>(tasks);
    const bool off = (ms > reference_ms * o.drift || ms * o.drift < reference_ms) &&
                     std::abs(ms - reference_ms) > o.drift_floor_ms;
    drift_streak = off ? drift_streak + 1 : 0;
    confirm = off && drift_streak < 2;
    if (drift_streak < 2) return false;
    recheck();
    return true;
  }

  //! The work changed under the choice: round zero times the choice twice and its rival twice (a
  //! switching choice's fastest direct form; a direct choice's fastest switching form, from the
  //! last full round one), as for a cached choice; where the choice lost, round one times the
  //! forms that were within restart_keep of the fastest direct form (every form on each
  //! full_restart_every-th check, as calibration_settings says for the termination scheduler),
  //! once each and then as second_pass() says.
  //! Where no rival was timed (a cached direct form), round one times every form again. The
  //! choice is this process's from now on.
  void recheck() {
    const int was = chosen;
    const std::vector<double>& seen = first_ms.empty() ? best_ms : first_ms;
    const bool direct_choice = forms[static_cast<std::size_t>(was)].direct();
    int rival = -1;
    for (std::size_t i = 0; i < forms.size() && i < seen.size(); ++i) {
      if (seen[i] < 0 || forms[i].direct() == direct_choice) continue;  // the other kind
      if (rival < 0 || seen[i] < seen[static_cast<std::size_t>(rival)]) rival = static_cast<int>(i);
    }
    for (auto& s : samples) s.clear();
    best_ms.assign(forms.size(), -1.0);
    finalist.clear();
    chosen = -1;
    drift_streak = 0;
    untimed = 0;
    confirm = false;
    reference_ms = -1;
    from_cache = false;
    cached_here = false;
    ++rechecks;
    next = 0;
    queue.clear();
    second_pass_done = false;
    if (rival < 0) {
      round = 1;
      first_ms.clear();
      queue_every_form();
      return;
    }
    round = 0;
    queue = {was, was, rival, rival};
  }

  //! `form` cannot run here (its pool does not fit): skipped from now on, `why` reported.
  void fail(int form, std::string why) { failed[static_cast<std::size_t>(form)] = std::move(why); }
  //! A timed run of `form` while the choice is open, on `tasks` tasks: kept per sample_tasks
  //! tasks (the first timed run's count), since a size class spans twice the tasks.
  void record(int form, double ms, std::uint64_t tasks = 1) {
    if (tasks == 0) tasks = 1;
    if (sample_tasks == 0) sample_tasks = tasks;
    const auto f = static_cast<std::size_t>(form);
    bool first = true;  // no run of this form's schedule yet
    for (std::size_t i = 0; i < forms.size(); ++i) {
      if (!samples[i].empty() && forms[i].schedule == forms[f].schedule) first = false;
    }
    cold[f] = first;
    samples[static_cast<std::size_t>(form)].push_back(ms * static_cast<double>(sample_tasks) /
                                                      static_cast<double>(tasks));
    ++runs;
    calibration_ms += ms;
  }

  //! Ends the round (or round one's first pass) whose queue is spent: round zero keeps the cached
  //! choice where it still beats its direct form by the margin, else round one times the other
  //! forms; round one's first pass is followed by its second (second_pass()); round one keeps
  //! the finalists (finalists(), within finalist_band()); round two decides by the finalists'
  //! medians (choose_form()). True when this call made a new choice (for the cache). Throws
  //! std::runtime_error where no form could run.
  bool next_round(const branch_form_options& o) {
    for (std::size_t i = 0; i < forms.size(); ++i) {
      const bool compared = round < 2 || finalist[i];
      best_ms[i] = compared ? summary(samples[i], round) : -1.0;
    }
    if (round == 0) {
      const int cached = queue.front();
      if (choose_form(forms, best_ms, o.margin) == cached) {
        chosen = cached;
        take_reference();
        return false;
      }
      from_cache = false;
      round = 1;
      queue.clear();  // the forms not timed in round zero, as in a fresh round one
      next = 0;
      second_pass_done = false;
      // After a drift, as the termination scheduler's restart: only the forms that were within
      // restart_keep of the fastest direct form in the last full round one, all of them on
      // every full_restart_every-th check.
      const calibration_settings restart;
      const bool narrow = rechecks > 0 && rechecks % restart.full_restart_every != 0;
      const int direct = narrow ? fastest_direct(forms, first_ms) : -1;
      for (std::size_t i = 0; i < forms.size(); ++i) {
        if (!samples[i].empty()) continue;
        if (direct >= 0 &&
            !(first_ms[i] >= 0 &&
              first_ms[i] <= first_ms[static_cast<std::size_t>(direct)] * restart.restart_keep)) {
          continue;
        }
        queue.push_back(static_cast<int>(i));
      }
      if (!queue.empty()) return false;
    }
    if (round == 1 && !second_pass_done) {
      second_pass_done = true;
      queue = second_pass();
      next = 0;
      if (!queue.empty()) return false;
    }
    if (round == 1) {
      round = 2;
      first_ms = best_ms;
      finalist.assign(forms.size(), false);
      band = finalist_band(o);
      for (const int i : finalists(forms, best_ms, band)) {
        finalist[static_cast<std::size_t>(i)] = true;
        samples[static_cast<std::size_t>(i)].clear();
      }
      queue.clear();  // the finalists in turns, final_runs times
      next = 0;
      for (int r = 0; r < o.final_runs; ++r) {
        for (std::size_t i = 0; i < forms.size(); ++i) {
          if (finalist[i]) queue.push_back(static_cast<int>(i));
        }
      }
      if (!queue.empty()) return false;  // else no form ran: nothing to choose from
    }
    chosen = choose_form(forms, best_ms, o.margin);
    if (chosen >= 0) take_reference();
    if (chosen < 0) {
      const auto why = std::find_if(failed.begin(), failed.end(),
                                    [](const std::string& w) { return !w.empty(); });
      throw std::runtime_error("automatic switching: no form of the program could run (" +
                               (why == failed.end() ? std::string() : *why) + ")");
    }
    return true;
  }

  //! The choice as the cache names it: its knobs and the fastest direct form timed
  //! (cached_form_text()). Only after the choice.
  [[nodiscard]] std::string cache_text() const {
    const int d = fastest_direct(forms, best_ms);
    return cached_form_text(forms[static_cast<std::size_t>(chosen)],
                            forms[static_cast<std::size_t>(d < 0 ? chosen : d)]);
  }

  std::vector<branch_form> forms;
  std::vector<double> best_ms;   //!< what the choice compares: round two's finalists only
  std::vector<double> first_ms;  //!< round one's times, for the report
  std::vector<bool> finalist;
  std::vector<std::vector<double>> samples;
  std::vector<std::string> failed;
  //! The form's last run was its schedule's first of this choice: it may have loaded kernels.
  std::vector<bool> cold;
  std::vector<int> queue;
  std::size_t next = 0;
  int round = 1;  //!< 0: a cached switching choice timed against its direct form
  int chosen = -1;
  int runs = 0;
  double calibration_ms = 0;
  bool second_pass_done = false;      //!< round one's second pass is queued or done
  double band = -1;                   //!< the last round one's finalist band (finalist_band())
  bool from_cache = false;            //!< the choice comes from the calibration cache
  bool cached_here = false;           //!< from another automatic_switching of this process
  double reference_ms = -1;           //!< the choice's time that drift is measured against
  std::uint64_t reference_tasks = 1;  //!< ... on this many tasks
  std::uint64_t sample_tasks = 0;     //!< the task count times are kept for (0: none yet)
  int untimed = 0;                    //!< runs of the choice since its last timed run
  bool confirm = false;               //!< the last timed run was off: time the next
  int drift_streak = 0;               //!< timed runs in a row off reference_ms
  int rechecks = 0;                   //!< checks that drift started

 private:
  //! Round one's first pass: every form once.
  void queue_every_form() {
    for (std::size_t i = 0; i < forms.size(); ++i) queue.push_back(static_cast<int>(i));
  }

  //! Round one's second pass: a form timed once runs again where its run was its schedule's
  //! first (kernels load, buffers are made), where it may still be a finalist (within
  //! drop_factor of the fastest run), or where its run was short (jitter is as large as the
  //! forms differ there, and a run costs little), as the termination scheduler's
  //! calibration_settings say. Any other form costs one run.
  [[nodiscard]] std::vector<int> second_pass() const {
    const calibration_settings rule;
    double fastest = -1;
    for (const auto& s : samples) {
      for (const double ms : s) fastest = fastest < 0 || ms < fastest ? ms : fastest;
    }
    std::vector<int> again;
    for (std::size_t i = 0; i < forms.size(); ++i) {
      if (samples[i].size() != 1 || !failed[i].empty()) continue;
      const double ms = samples[i].front();
      if (cold[i] || ms <= fastest * rule.drop_factor || ms < rule.short_run_ms) {
        again.push_back(static_cast<int>(i));
      }
    }
    return again;
  }

  //! The finalists' band: noise_multiple times the timing noise (the median of the relative
  //! spread between the two runs of each form timed twice), at least twice the margin and at
  //! most keep_within. Long runs are steady: a form a few percent off is not timed again there.
  [[nodiscard]] double finalist_band(const branch_form_options& o) const {
    std::vector<double> spread;
    for (const auto& s : samples) {
      if (s.size() < 2) continue;
      const double lo = std::min(s[0], s[1]);
      if (lo > 0) spread.push_back((std::max(s[0], s[1]) - lo) / lo);
    }
    if (spread.empty()) return o.keep_within;
    std::nth_element(spread.begin(),
                     spread.begin() + static_cast<std::ptrdiff_t>(spread.size() / 2), spread.end());
    const double noise = spread[spread.size() / 2];
    return std::min(o.keep_within, std::max(2.0 * o.margin, noise_multiple * noise));
  }
  //! Keeps a form that noise alone put behind the fastest.
  static constexpr double noise_multiple = 4.0;

  //! The choice's time as timed while choosing, on the last timed run's task count.
  void take_reference() {
    reference_ms = best_ms[static_cast<std::size_t>(chosen)];
    reference_tasks = sample_tasks == 0 ? 1 : sample_tasks;
    untimed = 0;
  }

  //! Rounds zero and one keep the faster of a form's runs (the first may load its kernel); round
  //! two the median.
  [[nodiscard]] static double summary(std::vector<double> s, int round) {
    if (s.empty()) return -1.0;
    std::sort(s.begin(), s.end());
    return round < 2 ? s.front() : s[s.size() / 2];
  }
};

}  // namespace microsched::switching
