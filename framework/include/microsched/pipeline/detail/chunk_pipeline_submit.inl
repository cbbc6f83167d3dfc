// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file chunk_pipeline_submit.inl
//! chunk_pipeline: what the helpers are given — the method and its slots, which chunks are
//! transformed ahead (all of them for partial methods, a share of them for whole-chunk methods),
//! the pieces of each chunk, and the uploads of finished segments. Included by chunk_pipeline.hpp
//! only.

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "microsched/pipeline/slot_choice.hpp"

namespace microsched::pipeline {

//! The first method the program lists that fits the memory limit with at least one slot; as many
//! slots as Δ + 1 (chunk i+Δ is transformed while chunk i's slot is read) or as fit.
template <pipeline_backend Backend>
template <class Program>
void chunk_pipeline<Backend>::choose_method(Program& program) {
  const std::vector<remap_method> methods = program.methods();
  const int wanted = args_.depth + 1;
  method_ = -1;
  partial_ = true;
  stats_.method_note.clear();
  auto note = [&](const std::string& text) {
    if (!stats_.method_note.empty()) stats_.method_note += "; ";
    stats_.method_note += text;
  };
  for (std::size_t m = 0; m < methods.size(); ++m) {
    const std::size_t per_slot = methods[m].host_bytes_per_slot + methods[m].device_bytes_per_slot;
    const std::size_t fixed = methods[m].host_bytes_fixed + methods[m].device_bytes_fixed;
    std::size_t fit = 0;
    if (fixed <= args_.memory_limit)
      fit = per_slot == 0 ? static_cast<std::size_t>(wanted)
                          : (args_.memory_limit - fixed) / per_slot;
    if (fit < 1) {
      note(methods[m].name + " over the memory cap (needs " +
           std::to_string(method_bytes(methods[m], 1)) + " B for one slot, limit " +
           std::to_string(args_.memory_limit) + " B)");
      continue;
    }
    method_ = static_cast<int>(m);
    partial_ = methods[m].partial;
    const int slots =
        static_cast<int>(std::min<std::size_t>(fit, static_cast<std::size_t>(wanted)));
    depth_ = std::max(1, std::min(args_.depth, slots));
    stats_.method = methods[m].name;
    stats_.slots = slots;
    stats_.depth = depth_;
    stats_.method_index = static_cast<int>(m);
    stats_.host_bytes = methods[m].host_bytes_fixed +
                        methods[m].host_bytes_per_slot * static_cast<std::size_t>(slots);
    stats_.device_bytes = methods[m].device_bytes_fixed +
                          methods[m].device_bytes_per_slot * static_cast<std::size_t>(slots);
    if (m > 0) note("took " + methods[m].name);
    program.prepare(method_, slots);
    slots_.assign(static_cast<std::size_t>(slots), detail::slot_state{});
    while (released_events_.size() < static_cast<std::size_t>(slots)) {  // made once, reused
      copy_events_.push_back(backend_.make_event());
      released_events_.push_back(backend_.make_event());
    }
    for (int s = 0; s < slots; ++s)
      slots_[static_cast<std::size_t>(s)].released_event =
          released_events_[static_cast<std::size_t>(s)];
    return;
  }
  stats_.method.clear();
  stats_.method_index = -1;
  stats_.slots = 0;
  stats_.depth = 0;
}

//! Chunk share (chunk_share.hpp): passed over, or selected and submitted, or no slot free.
template <pipeline_backend Backend>
template <class Program>
bool chunk_pipeline<Backend>::consider(Program& program, std::size_t chunk, double share) {
  if (!share_.take(chunk, share)) return true;
  if (submit<whole_chunk_profiling>(program, chunk)) return true;
  share_.slot_busy(chunk);
  return false;
}

//! Partial methods submit chunk i+Δ at the current r. Whole-chunk methods keep the window up to
//! chunk i+Δ filled at the chunk share, or speculate while a single-chunk profile is judged.
template <pipeline_backend Backend>
template <class Profiling, class Program>
void chunk_pipeline<Backend>::schedule_ahead(Program& program, std::size_t i) {
  if constexpr (Profiling::scope == remap_scope::partial) {
    if (i > 0 && i + static_cast<std::size_t>(depth_) < run_.chunks)
      submit<Profiling>(program, i + static_cast<std::size_t>(depth_));
  } else if (control_.state() == adaptive_controller::phase::profiling) {
    speculate(program, i);
  } else if (i > 0) {
    fill_window(program, i);
  }
}

//! While a single-chunk profile awaits its verdict the helpers would idle from the end of the
//! profiled remap until its kernel has run: once the profiled remap has finished, the Δ chunks
//! after it are selected at the share the verdict gives at least (speculative_share), and
//! cancelled if the control switches off.
template <pipeline_backend Backend>
template <class Program>
void chunk_pipeline<Backend>::speculate(Program& program, std::size_t i) {
  if (next_considered_ != run_.profiled + 1 ||
      control_.state() != adaptive_controller::phase::profiling)
    return;
  const chunk_task* p = tasks_[run_.profiled].get();
  if (p == nullptr || !p->all_finished() || p->has_failed()) return;
  if (control_.original_mean_ms() <= 0)
    harvest<whole_chunk_profiling>(false);  // Torg from the warm-up kernels
  double torg = control_.original_mean_ms();
  // Kernel 0 still running: Torg is at least the time since it was launched (a lower bound gives
  // a smaller share).
  if (torg <= 0) torg = static_cast<double>(now() - run_start_ns_) * 1e-6;
  const double share = speculative_share(torg, p->transform_ms(), args_.control.min_ratio);
  // Before the profiled chunk's launch the GPU still has the warm-up originals queued, so the
  // chunk after it has time too; after it, chunk i+1 is decided within one kernel time.
  if (run_.profiled_launched) skip_to(i + 2);
  const std::size_t last =
      std::min(run_.chunks - 1, run_.profiled + static_cast<std::size_t>(depth_));
  for (; next_considered_ <= last && consider(program, next_considered_, share); ++next_considered_)
    share_.set_speculative(next_considered_);
}

//! After the verdict, each iteration fills the window up to chunk i+Δ from chunk i+2 on (Δ >= 2):
//! chunk i+1 is decided within one kernel time, too soon for a remap started now.
template <pipeline_backend Backend>
template <class Program>
void chunk_pipeline<Backend>::fill_window(Program& program, std::size_t i) {
  skip_to(i + (depth_ >= 2 ? 2 : 1));
  const std::size_t last = std::min(run_.chunks - 1, i + static_cast<std::size_t>(depth_));
  for (; next_considered_ <= last && consider(program, next_considered_, control_.ratio());
       ++next_considered_) {
  }
}

template <pipeline_backend Backend>
void chunk_pipeline<Backend>::skip_to(std::size_t first) {
  for (; next_considered_ < std::min(first, run_.chunks); ++next_considered_)
    share_.pass_over(next_considered_);
}

//! A later profile (a retry after a miss, or re-arming): chunk `chunk` is profiled; the chunks
//! from `first_waiting` up to it run the original kernel meanwhile.
template <pipeline_backend Backend>
template <class Program>
void chunk_pipeline<Backend>::profile_again(Program& program, std::size_t first_waiting,
                                            std::size_t chunk) {
  run_.profiled = chunk;
  run_.profiled_launched = false;
  guard_from_ = chunk;
  for (std::size_t c = first_waiting; c < chunk; ++c) share_.await_profile(c);
  next_considered_ = chunk + 1;
  submit<whole_chunk_profiling>(program, chunk);
}

//! A slot's host staging may be rewritten only when the previous task's chunk was launched (or
//! abandoned), every piece of it has returned and its copy has left the host buffer.
template <pipeline_backend Backend>
bool chunk_pipeline<Backend>::reusable(detail::slot_state& slot) {
  if (!slot.task) return true;
  chunk_task& t = *slot.task;
  if (t.chunk >= launched_ || !t.all_finished()) return false;
  if (t.segments_uploaded > 0 && !t.copy_recorded) {  // abandoned between two segment copies
    backend_.record(t.copy_event, backend_.copy_stream());
    t.copy_recorded = true;
  }
  return !t.copy_recorded || backend_.query(t.copy_event);
}

//! Cuts chunk `chunk` into pieces and hands them to the helpers; false when no slot is free or
//! nothing would be transformed (the chunk then runs the original kernel).
template <pipeline_backend Backend>
template <class Profiling, class Program>
bool chunk_pipeline<Backend>::submit(Program& program, std::size_t chunk) {
  const int slot = choose_slot(
      chunk, slots_.size(), Profiling::scope == remap_scope::whole_chunk,
      [&](std::size_t k) { return reusable(slots_[k]); },
      [&](std::size_t k) {
        return !slots_[k].released_recorded || backend_.query(slots_[k].released_event);
      });
  if (slot < 0) return false;  // slot_busy
  const std::size_t elements = program.chunk_elements(chunk);
  const double ratio = control_.ratio();
  const auto g = static_cast<std::size_t>(args_.granularity);
  const std::size_t m = Profiling::transformed(elements, ratio, g);
  if (m == 0) return false;

  auto task = std::make_shared<chunk_task>();
  task->chunk = chunk;
  task->slot = slot;
  task->ratio = ratio;
  task->transformed = m;
  task->elements = elements;
  task->copy_event = copy_events_[static_cast<std::size_t>(slot)];
  if constexpr (detail::has_host_clock<Backend>) task->clock = [this] { return now(); };
  const std::size_t units = (m + g - 1) / g;
  task->segments = static_cast<int>(std::max<std::size_t>(
      1, std::min<std::size_t>(static_cast<std::size_t>(control_.segments()), units)));
  const auto per_segment = static_cast<std::size_t>(
      Profiling::helpers_per_segment(args_.threads_per_chunk, pool_->size(), task->segments));
  task->pieces_per_segment = static_cast<int>(std::max<std::size_t>(
      1, std::min<std::size_t>(per_segment, units / static_cast<std::size_t>(task->segments))));
  const int pieces = task->pieces();
  bool weighted = false;
  if constexpr (weighted_pieces<Program>) {
    task->bounds = program.piece_bounds(chunk, m, pieces, g);
    weighted = valid_piece_bounds(task->bounds, m, pieces, g);
  }
  if (!weighted) task->bounds = equal_piece_bounds(m, pieces, g);
  task->pieces_left =
      std::make_unique<std::atomic<int>[]>(static_cast<std::size_t>(task->segments));
  for (int s = 0; s < task->segments; ++s) task->pieces_left[s].store(task->pieces_per_segment);
  task->outcomes.assign(static_cast<std::size_t>(pieces), transform_outcome{});

  slots_[static_cast<std::size_t>(slot)].task = task;
  tasks_[chunk] = task;
  std::vector<std::function<void()>> jobs;
  jobs.reserve(static_cast<std::size_t>(pieces));
  for (int p = 0; p < pieces; ++p) {
    jobs.emplace_back([task, p, &program, method = method_] {
      chunk_task& t = *task;
      const auto k = static_cast<std::size_t>(p);
      t.run_piece(k, [&] {
        return program.transform(transform_job{t.chunk, t.slot, method, t.bounds[k],
                                               t.bounds[k + 1], t.transformed, t.elements,
                                               &t.cancel});
      });
      t.piece_done(p);
    });
  }
  pool_->submit(std::move(jobs));  // one lock, every helper woken at once
  return true;
}

//! Whether `task`'s chunk can run optimised now: its transformation is complete and every upload
//! enqueued, and either the copy has completed or the policy lets the GPU wait for it.
template <pipeline_backend Backend>
template <class Profiling>
bool chunk_pipeline<Backend>::can_launch(chunk_task& task) {
  if (task.has_failed() || !task.copy_recorded) return false;
  return Profiling::copy_waited_on_gpu() || backend_.query(task.copy_event);
}

//! Enqueues the copy of every finished segment of `task`, in order; records the copy's event
//! once the last one is enqueued.
template <pipeline_backend Backend>
template <class Program>
void chunk_pipeline<Backend>::progress_uploads(Program& program, chunk_task& task) {
  if (task.has_failed() || task.cancel.load(std::memory_order_acquire)) return;
  detail::slot_state& state = slots_[static_cast<std::size_t>(task.slot)];
  while (task.segments_uploaded < task.segments && task.segment_ready(task.segments_uploaded)) {
    if (task.has_failed()) return;
    if (task.segments_uploaded == 0 && state.released_recorded)
      backend_.wait(backend_.copy_stream(), state.released_event);  // device staging reuse
    const int s = task.segments_uploaded;
    const auto first = static_cast<std::size_t>(s * task.pieces_per_segment);
    const auto last = first + static_cast<std::size_t>(task.pieces_per_segment);
    const transform_job job{task.chunk,        task.slot,        method_,      task.bounds[first],
                            task.bounds[last], task.transformed, task.elements};
    program.upload(job, backend_.copy_stream());
    ++task.segments_uploaded;
  }
  if (task.segments_uploaded == task.segments && !task.copy_recorded) {
    backend_.record(task.copy_event, backend_.copy_stream());
    task.copy_recorded = true;
  }
}

template <pipeline_backend Backend>
void chunk_pipeline<Backend>::abandon_all_tasks() {
  abandon_pending();
  for (auto& slot : slots_)
    if (slot.task) slot.task->abandon();
}

template <pipeline_backend Backend>
void chunk_pipeline<Backend>::abandon_pending() {
  for (auto& t : tasks_)
    if (t) t->abandon();
  run_.abandoned_all = true;
}

}  // namespace microsched::pipeline
