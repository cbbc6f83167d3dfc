// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file chunk_pipeline_launch.inl
//! chunk_pipeline: what the launching thread does in a run — set up, wait for a chunk, launch
//! it, pace. Included by chunk_pipeline.hpp only.

#include <algorithm>
#include <string>
#include <thread>

#include "microsched/pipeline/host_load.hpp"
#include "microsched/pipeline/pacing.hpp"

namespace microsched::pipeline {

template <pipeline_backend Backend>
void chunk_pipeline<Backend>::reset_run(std::size_t chunks) {
  stats_ = pipeline_statistics{};
  stats_.memory_limit = args_.memory_limit;
  stats_.iterations.assign(chunks, iteration_record{});
  for (std::size_t i = 0; i < chunks; ++i) stats_.iterations[i].iteration = i;
  run_ = run_state{};
  run_.chunks = chunks;
  run_.off_at = chunks;
  tasks_.assign(chunks, nullptr);
  share_.reset(chunks);
  next_considered_ = 0;
  launched_ = 0;
  slots_.clear();
  opt_sum_ = 0;
  opt_count_ = 0;
  timed_.clear();
  timed_launches_ = 0;
  harvested_end_ = -1;
  run_start_ns_ = now();
  if (ring_.empty()) {
    ring_.resize(static_cast<std::size_t>(std::max(64, 4 * args_.depth + 8)));
    for (detail::launch_events& ev : ring_) {
      ev.start = backend_.make_event();
      ev.end = backend_.make_event();
    }
  }
}

//! The control, the helpers, the host check and the back-off, then the warm-up: chunk 0 runs
//! the original kernel while chunks 1..Δ are transformed (whole chunks under an adaptive control:
//! the profiled chunk only, so a remap that cannot keep up costs one chunk's helper work).
template <pipeline_backend Backend>
template <class Profiling, class Program>
void chunk_pipeline<Backend>::start_run(Program& program) {
  constexpr bool whole = Profiling::scope == remap_scope::whole_chunk;
  const std::size_t n = run_.chunks;
  stats_.profiling = method_ >= 0 ? Profiling::name : "";
  run_.single_profile = whole;
  run_.queue_ahead = queue_ahead(whole, depth_);
  run_.profiled = whole_chunk_profiling::first_profiled(depth_, n);
  control_ = adaptive_controller(args_.control, Profiling::control_window(depth_, run_.profiled),
                                 Profiling::scope);
  cores_ = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  if (method_ >= 0 && !pool_) {
    const int helpers = std::clamp(args_.threads_per_chunk * depth_, 1, std::max(1, cores_ - 1));
    pool_ = std::make_unique<worker_pool>(helpers, args_.helper_spin);
  }
  stats_.helper_threads = pool_ ? pool_->size() : 0;
  stats_.helpers_active = stats_.helper_threads;
  // Back-off first: a run that must launch the original loop needs no host check.
  run_.backed_off = method_ >= 0 && backoff_.skip_run();
  run_.host_busy = method_ >= 0 && !run_.backed_off && !host_allows();
  run_.remap = method_ >= 0 && !run_.host_busy && !run_.backed_off;
  guard_from_ = run_.single_profile ? run_.profiled : 0;
  if (!run_.remap) return;
  for (std::size_t c = 1; c <= static_cast<std::size_t>(depth_) && c < n; ++c) {
    if (!whole || (run_.single_profile && c == run_.profiled))
      submit<Profiling>(program, c);
    else if (!run_.single_profile)
      consider(program, c, control_.ratio());
  }
  next_considered_ = run_.single_profile ? run_.profiled + 1 : static_cast<std::size_t>(depth_) + 1;
}

//! Host check (host_load.hpp): helpers only on cores nobody else wants; too few, no pipeline.
template <pipeline_backend Backend>
bool chunk_pipeline<Backend>::host_allows() {
  if (!args_.host_check || !pool_) return true;
  const int runnable =
      args_.host_runnable ? args_.host_runnable() : host_runnable_threads().value_or(-1);
  if (runnable < 0) return true;
  const int others = std::max(0, runnable - 1 - pool_->awake());
  const int usable = helpers_for_host(cores_, others, pool_->size());
  const int least =
      args_.host_min_helpers > 0 ? args_.host_min_helpers : std::max(1, pool_->size() / 4);
  stats_.host_others = others;
  stats_.helpers_active = usable;
  if (usable < least) {
    run_.host_note = "host busy: " + std::to_string(others) + " other runnable threads on " +
                     std::to_string(cores_) + " cores leave " + std::to_string(usable) +
                     " helper(s), fewer than " + std::to_string(least);
    return false;
  }
  pool_->set_active(usable);
  return true;
}

//! Re-arming (adaptive_arguments::rearm_after, whole chunks): once per run, a control that
//! switched off profiles again rearm_after chunks later, so that one transient (a remap that lost
//! its core, a GPU step stalled by the host) does not cost the rest of the run. The host check
//! comes first: where the cores are taken now, a profile would cost, not pay.
template <pipeline_backend Backend>
template <class Program>
void chunk_pipeline<Backend>::rearm_if_due(Program& program, std::size_t i) {
  if (!run_.single_profile || run_.rearmed || args_.control.rearm_after <= 0 || control_.enabled())
    return;
  if (run_.off_at == run_.chunks) run_.off_at = i;
  const std::size_t again = i + whole_chunk_profiling::profile_lead(depth_);
  if (i < run_.off_at + static_cast<std::size_t>(args_.control.rearm_after) || again >= run_.chunks)
    return;
  if (!run_.rearm_refused && !host_allows()) run_.rearm_refused = true;
  if (run_.rearm_refused) return;
  harvest<whole_chunk_profiling>(
      true);  // what was timed before the shut-down stays with the old control
  run_.first_off = control_.reason();
  control_ =
      adaptive_controller(args_.control, static_cast<int>(again - i), remap_scope::whole_chunk);
  run_.rearmed = true;
  run_.abandoned_all = false;
  harvested_end_ = -1;  // the guard's steps start again at the new profiled chunk
  profile_again(program, i, again);
}

//! Before chunk i's launch: its finished segments are uploaded; and a single-chunk profile waits
//! until the profiled chunk is ready or kernel i-1 ended: queued pacing would launch it after
//! kernel i-2, one kernel time short of the Δ kernel times its remap is given.
template <pipeline_backend Backend>
template <class Profiling, class Program>
void chunk_pipeline<Backend>::wait_for_chunk(Program& program, chunk_task& task, std::size_t i) {
  progress_uploads(program, task);
  if constexpr (Profiling::scope == remap_scope::whole_chunk) {
    if (run_.queue_ahead && i == run_.profiled && run_.previous_end >= 0 &&
        control_.state() == adaptive_controller::phase::profiling) {
      while (!task.has_failed() && !can_launch<Profiling>(task) &&
             !backend_.query(run_.previous_end)) {
        progress_uploads(program, task);
        speculate(program, i);
        pause();
      }
      progress_uploads(program, task);
    }
  }
}

template <pipeline_backend Backend>
template <class Profiling, class Program>
bool chunk_pipeline<Backend>::launchable(Program& program, chunk_task* task, bool active) {
  if (!task || !active) return false;
  progress_uploads(program, *task);
  return can_launch<Profiling>(*task);
}

//! Launches chunk i, optimised when `ready`. Kernel times feed the adaptive control; once it is
//! off (or nothing can be remapped) no event is recorded, so the launches are exactly the
//! original loop's.
template <pipeline_backend Backend>
template <class Profiling, class Program>
typename chunk_pipeline<Backend>::launch_result chunk_pipeline<Backend>::launch(Program& program,
                                                                                std::size_t i,
                                                                                chunk_task* task,
                                                                                bool ready) {
  iteration_record& r = stats_.iterations[i];
  launch_result l;
  l.ready = ready;
  l.timed = run_.remap && control_.enabled();
  // One ring slot short of full: the last harvested end event must stay unrecorded until the
  // next launch is harvested (the loss guard reads it).
  if (l.timed && timed_.size() + 1 >= ring_.size()) harvest<Profiling>(true);
  const std::size_t ring_slot = timed_launches_ % ring_.size();
  const detail::launch_events& ev = ring_[ring_slot];
  const auto stream = backend_.compute_stream();
  if (l.timed) backend_.record(ev.start, stream);
  if (ready) {
    if constexpr (Profiling::scope == remap_scope::whole_chunk)
      backend_.wait(stream, task->copy_event);
    const transform_job job{task->chunk,       task->slot,        method_,       0,
                            task->transformed, task->transformed, task->elements};
    program.launch_optimised(job, stream);
    detail::slot_state& state = slots_[static_cast<std::size_t>(task->slot)];
    backend_.record(state.released_event, stream);
    state.released_recorded = true;
    r.optimised = true;
    r.reason = fallback::none;
  } else {
    program.launch_original(i, stream);
    r.optimised = false;
    r.reason = fallback_reason(i, task);
  }
  if (i == run_.profiled) run_.profiled_launched = true;
  l.waited_end = run_.queue_ahead ? run_.previous_end : ev.end;
  l.end_before = run_.previous_end;
  if (l.timed) {
    backend_.record(ev.end, stream);
    timed_.emplace_back(i, ring_slot);
    ++timed_launches_;
  }
  l.end_event = ev.end;
  run_.previous_end = l.timed ? ev.end : -1;
  return l;
}

template <pipeline_backend Backend>
fallback chunk_pipeline<Backend>::fallback_reason(std::size_t i, const chunk_task* task) const {
  if (!run_.remap)
    return run_.backed_off  ? fallback::backoff
           : run_.host_busy ? fallback::host_busy
                            : fallback::memory_cap;
  if (!control_.enabled()) return fallback::controller_off;
  if (task && task->has_failed()) return fallback::transform_failed;
  if (task) return fallback::not_ready;
  if (share_.at(i) == chunk_share::mark::skipped) return fallback::chunk_share;
  if (share_.at(i) == chunk_share::mark::awaiting_profile) return fallback::awaiting_profile;
  return i > static_cast<std::size_t>(depth_) ? fallback::slot_busy : fallback::warm_up;
}

//! After chunk i's launch: its record, and a miss reported at once (no kernel time needed), so a
//! control that switches off at profiling drains the GPU queue once, not twice. Misses that say
//! nothing about r are not judged: speculative chunks (selected before the verdict at its lower
//! bound, with a head start) and, while profiling, chunks the policy does not judge. A profiled
//! whole chunk that missed is profiled again Δ chunks later, while the control allows it.
template <pipeline_backend Backend>
template <class Profiling, class Program>
void chunk_pipeline<Backend>::after_launch(Program& program, std::size_t i, chunk_task& task,
                                           const launch_result& l) {
  if (!l.ready) task.abandon();
  finish_task_record(i, task);
  const bool profiling = control_.state() == adaptive_controller::phase::profiling;
  const bool judged =
      !share_.speculative(i) && Profiling::judged(profiling, i, run_.profiled, depth_);
  const iteration_record& r = stats_.iterations[i];
  if (!l.ready && l.timed && judged) control_.transformation(r.ratio, false, r.transform_ms, 0);
  if constexpr (Profiling::scope == remap_scope::whole_chunk) {
    if (i != run_.profiled || l.ready || !control_.enabled() ||
        control_.state() != adaptive_controller::phase::profiling)
      return;
    if (i + static_cast<std::size_t>(depth_) < run_.chunks)
      profile_again(program, i + 1, i + static_cast<std::size_t>(depth_));
    else
      control_.shut_down("profiling: the profiled chunk " + std::to_string(i) +
                         " missed its launch and no chunk is left to profile");
  }
}

//! gs_checkRemap(i+1): while the GPU runs chunk i, upload chunk i+1's finished segments and keep
//! the helpers busy, until the pacing (pacing.hpp) says to launch.
template <pipeline_backend Backend>
template <class Profiling, class Program>
void chunk_pipeline<Backend>::pace(Program& program, std::size_t i, chunk_task& next,
                                   const launch_result& l) {
  constexpr bool whole = Profiling::scope == remap_scope::whole_chunk;
  const bool profiling = control_.state() == adaptive_controller::phase::profiling;
  pacing_plan plan;
  plan.whole_chunks = whole;
  plan.profiling = !whole && profiling;
  plan.previous_timed = l.end_before >= 0;
  plan.expected_ms = expected_kernel_ms(whole, plan.previous_timed, stats_.iterations[i].optimised,
                                        topt_mean_ms(), control_.original_mean_ms());
  plan.margin_ns = pacing_margin_ns(plan.expected_ms);
  launch_pacer pacer(plan);
  while (true) {
    progress_uploads(program, next);
    if constexpr (whole) {
      if (control_.state() == adaptive_controller::phase::profiling)
        speculate(program, i);  // the profiled remap may finish while this waits
      else
        fill_window(program, i);  // a slot may have freed since the top of the iteration
    }
    if (next.has_failed()) break;
    pacing_view view;
    view.next_ready = can_launch<Profiling>(next);
    view.previous_ended = l.end_before < 0 || backend_.query(l.end_before);
    view.current_ended = backend_.query(l.end_event);
    view.waited_ended = l.waited_end < 0 || backend_.query(l.waited_end);
    view.now_ns = now();
    if (pacer.done(view)) break;
    pause();
  }
}

//! A single-chunk profile whose chunk ran optimised waits for kernel i, so the verdict (which
//! needs the optimised kernel's time) arrives before the host runs ahead of chunks that could be
//! remapped: one drained iteration, only when profiling succeeded and no speculation is under way.
template <pipeline_backend Backend>
template <class Program>
void chunk_pipeline<Backend>::await_verdict(Program& program, std::size_t i,
                                            const launch_result& l) {
  if (!run_.single_profile || !l.timed || i < run_.profiled ||
      next_considered_ != run_.profiled + 1 ||
      control_.state() != adaptive_controller::phase::profiling)
    return;
  while (!backend_.query(l.end_event)) {
    speculate(program, i);
    pause();
  }
}

}  // namespace microsched::pipeline
