// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file chunk_pipeline.hpp
//! The CPU-GPU pipeline of zhang2010 §4.1 and zhang2011 §5 (Figure 6). A program launches one
//! kernel per chunk of data; helper threads transform chunk i+Δ while the GPU runs chunk i, the
//! main thread copies finished segments asynchronously and, at each launch, runs the optimised
//! kernel only if that chunk's remap and copy are complete, otherwise the original kernel. It
//! only ever queries streams and events: it waits for nothing that the original program would
//! not wait for, and once the adaptive control switches itself off it launches exactly what the
//! original loop launches.
//!
//! The driver is one loop (run_chunks) over named parts, each in its own header:
//! - the profiling policy of the chosen method, partial or whole chunk (profiling.hpp);
//! - the adaptive control that sets r (adaptive_control.hpp) and the chunk share (chunk_share.hpp);
//! - the staging slot a remap goes to (slot_choice.hpp);
//! - how long the launching thread waits between launches (pacing.hpp);
//! - the chunk tasks the helpers run and how they are stopped (detail/transform_task.hpp), shared
//!   with the kernel splitter (kernel_split.hpp);
//! - the host check and the back-off across runs (host_load.hpp, run_backoff.hpp).
//! The implementation is in detail/chunk_pipeline_submit.inl (what the helpers are given),
//! detail/chunk_pipeline_launch.inl (what the launching thread does around each launch) and
//! detail/chunk_pipeline_record.inl (kernel times and statistics).
//!
//! It is pure C++ over two concepts, so its threading is tested under ThreadSanitizer with a
//! simulated GPU: a `pipeline_backend` (streams and events; cuda_backend.hpp is the real one) and
//! a `chunk_program` (the user's transformation, copies and launches), declared in
//! chunk_program.hpp; the arguments are in pipeline_arguments.hpp.

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "microsched/pipeline/adaptive_control.hpp"
#include "microsched/pipeline/chunk_program.hpp"
#include "microsched/pipeline/chunk_share.hpp"
#include "microsched/pipeline/detail/chunk_task.hpp"
#include "microsched/pipeline/detail/poll_pause.hpp"
#include "microsched/pipeline/pipeline_arguments.hpp"
#include "microsched/pipeline/profiling.hpp"
#include "microsched/pipeline/run_backoff.hpp"
#include "microsched/pipeline/statistics.hpp"
#include "microsched/pipeline/worker_pool.hpp"

namespace microsched::pipeline {

template <pipeline_backend Backend>
class chunk_pipeline {
 public:
  //! Throws std::invalid_argument for bad arguments.
  chunk_pipeline(Backend& backend, const pipeline_arguments& args)
      : backend_(backend), args_(args), backoff_(args.backoff_tolerance, args.backoff_max_runs) {
    validate(args_);
  }
  chunk_pipeline(const chunk_pipeline&) = delete;
  chunk_pipeline& operator=(const chunk_pipeline&) = delete;

  //! The original loop, unpipelined: every chunk with the original kernel, then synchronize.
  template <chunk_program<Backend> Program>
  static void run_original(Backend& backend, Program& program) {
    const std::size_t n = program.chunk_count();
    for (std::size_t c = 0; c < n; ++c) program.launch_original(c, backend.compute_stream());
    backend.synchronize();
  }

  //! Every chunk remapped with method `method` (an index into program.methods()) on the calling
  //! thread before its launch, one chunk at a time through one staging slot, so the optimised
  //! kernel runs on every chunk: a reference for checks of a program's remapped kernel. `ratio`:
  //! the share of each chunk remapped, for a partial method (whole granules of `granularity`); an
  //! all-or-nothing method remaps whole chunks.
  template <chunk_program<Backend> Program>
  static void run_remapped(Backend& backend, Program& program, int method = 0, double ratio = 1.0,
                           std::size_t granularity = 32) {
    const std::vector<remap_method> methods = program.methods();
    if (method < 0 || static_cast<std::size_t>(method) >= methods.size())
      throw_invalid("method", method, "must index the program's methods()");
    if (!(ratio > 0 && ratio <= 1)) throw_invalid("ratio", ratio, "must be in (0, 1]");
    if (granularity < 1) throw_invalid("granularity", granularity, "must be >= 1");
    const bool partial = methods[static_cast<std::size_t>(method)].partial;
    program.prepare(method, 1);
    const int done = backend.make_event();
    for (std::size_t c = 0; c < program.chunk_count(); ++c) {
      const std::size_t elements = program.chunk_elements(c);
      const std::size_t m =
          partial ? partial_profiling::transformed(elements, ratio, granularity) : elements;
      if (m == 0) {
        program.launch_original(c, backend.compute_stream());
        continue;
      }
      const transform_job job{c, 0, method, 0, m, m, elements};
      backend.synchronize();  // the slot's last reader has ended
      (void)program.transform(job);
      program.upload(job, backend.copy_stream());
      backend.record(done, backend.copy_stream());
      backend.wait(backend.compute_stream(), done);
      program.launch_optimised(job, backend.compute_stream());
    }
    backend.synchronize();
  }

  //! Runs every chunk through the pipeline and returns what happened. Errors of the
  //! transformation are recorded and the chunk runs the original kernel; errors of the backend
  //! or of a launch propagate after the helper threads have stopped.
  template <chunk_program<Backend> Program>
  const pipeline_statistics& run(Program& program) {
    const detail::poller poll(args_.poll_interval);
    poll_ = &poll;
    const detail::helper_stop stop(pool_, [this] { abandon_all_tasks(); });
    reset_run(program.chunk_count());
    choose_method(program);
    if (partial_)
      run_chunks<partial_profiling>(program);
    else
      run_chunks<whole_chunk_profiling>(program);
    return stats_;
  }

  [[nodiscard]] const pipeline_statistics& statistics() const noexcept { return stats_; }

 private:
  using chunk_task = detail::chunk_task;

  //! One run's decisions and progress.
  struct run_state {
    std::size_t chunks = 0;
    bool remap = false;       // a method fits, the host has cores for it, no back-off
    bool backed_off = false;  // run_backoff: an earlier run lost
    bool host_busy = false;   // the host check found too few idle cores
    std::string host_note;    // why (also when re-arming was refused)
    bool single_profile =
        false;  // whole chunks under an adaptive control: one profiled chunk at a time
    bool queue_ahead = false;  // pacing.hpp
    std::size_t profiled = 0;  // the chunk the profile judges
    bool profiled_launched = false;
    int previous_end = -1;  // end event of the previous timed launch (-1: none)
    bool abandoned_all = false;
    std::size_t off_at = 0;  // iteration at which the control was first seen off (chunks: never)
    std::string first_off;   // its reason, kept for the statistics once re-armed
    bool rearmed = false;
    bool rearm_refused = false;  // the host check found the cores busy at the re-arm point
  };
  //! What one launch did, for the parts that follow it.
  struct launch_result {
    bool ready = false;   // the optimised kernel ran
    bool timed = false;   // events were recorded around it
    int end_event = -1;   // its end event (timed)
    int end_before = -1;  // kernel i-1's end event (-1: none)
    int waited_end = -1;  // the end event the paper's pacing waits for
  };

  // The loop and its parts (detail/chunk_pipeline_launch.inl).
  template <class Profiling, class Program>
  void run_chunks(Program& program);
  void reset_run(std::size_t chunks);
  template <class Profiling, class Program>
  void start_run(Program& program);
  [[nodiscard]] bool host_allows();
  template <class Program>
  void rearm_if_due(Program& program, std::size_t i);
  template <class Profiling, class Program>
  void wait_for_chunk(Program& program, chunk_task& task, std::size_t i);
  template <class Profiling, class Program>
  [[nodiscard]] bool launchable(Program& program, chunk_task* task, bool active);
  template <class Profiling, class Program>
  launch_result launch(Program& program, std::size_t i, chunk_task* task, bool ready);
  [[nodiscard]] fallback fallback_reason(std::size_t i, const chunk_task* task) const;
  template <class Profiling, class Program>
  void after_launch(Program& program, std::size_t i, chunk_task& task, const launch_result& l);
  template <class Profiling, class Program>
  void pace(Program& program, std::size_t i, chunk_task& next, const launch_result& l);
  template <class Program>
  void await_verdict(Program& program, std::size_t i, const launch_result& l);

  // What a run measures and reports (detail/chunk_pipeline_record.inl).
  template <class Profiling>
  void harvest(bool all);
  void finish_task_record(std::size_t iteration, chunk_task& task);
  template <class Profiling>
  void finish_run();
  void report_controller();

  // What the helpers are given (detail/chunk_pipeline_submit.inl).
  template <class Program>
  void choose_method(Program& program);
  template <class Profiling, class Program>
  bool submit(Program& program, std::size_t chunk);
  //! False when the chunk was selected but no slot is free (try again later).
  template <class Program>
  bool consider(Program& program, std::size_t chunk, double share);
  template <class Profiling, class Program>
  void schedule_ahead(Program& program, std::size_t i);
  template <class Program>
  void speculate(Program& program, std::size_t i);
  template <class Program>
  void fill_window(Program& program, std::size_t i);
  void skip_to(std::size_t first);
  template <class Program>
  void profile_again(Program& program, std::size_t first_waiting, std::size_t chunk);
  [[nodiscard]] bool reusable(detail::slot_state& slot);
  template <class Profiling>
  [[nodiscard]] bool can_launch(chunk_task& task);
  template <class Program>
  void progress_uploads(Program& program, chunk_task& task);
  void abandon_all_tasks();  // every chunk's and every slot's task
  void abandon_pending();    // every chunk's task, once after the control switched off
  void pause() const { poll_->pause(); }
  //! The host clock: the backend's own where it keeps one (tests script it), else steady_clock.
  [[nodiscard]] long long now() { return detail::host_now_ns(backend_); }
  [[nodiscard]] double topt_mean_ms() const { return opt_count_ > 0 ? opt_sum_ / opt_count_ : -1; }

  Backend& backend_;
  pipeline_arguments args_;
  run_backoff backoff_;  // across runs: original loops after a pipelined run lost
  pipeline_statistics stats_;
  adaptive_controller control_{};
  std::unique_ptr<worker_pool> pool_;
  const detail::poller* poll_ = nullptr;  // the current run's
  run_state run_;
  int cores_ = 2;
  int method_ = -1;
  bool partial_ = true;  // the chosen method's remap_method::partial
  int depth_ = 0;
  double opt_sum_ = 0;  // optimised kernel times (Topt, just-in-time pacing)
  int opt_count_ = 0;
  std::vector<detail::slot_state> slots_;
  std::vector<std::shared_ptr<chunk_task>> tasks_;  // per chunk
  std::vector<detail::launch_events> ring_;
  std::deque<std::pair<std::size_t, std::size_t>> timed_;  // (iteration, ring slot) not harvested
  std::size_t timed_launches_ = 0;
  int harvested_end_ = -1;               // end event of the last harvested launch (-1: none)
  std::size_t harvested_iteration_ = 0;  // its iteration
  std::vector<int> copy_events_;         // one per slot, reused across runs
  std::vector<int> released_events_;     // one per slot, reused across runs
  std::size_t next_considered_ = 0;      // whole chunks: the next chunk the share considers
  std::size_t launched_ = 0;  // chunks launched so far in this run (slots of earlier ones are free)
  std::size_t guard_from_ = 0;  // first iteration whose step the loss guard judges
  long long run_start_ns_ = 0;
  chunk_share share_;  // which chunks the helpers transform, and why the others were passed over
};

//! The loop: per chunk, schedule the helpers' work ahead, launch the chunk (optimised when its
//! remap is on the device), then wait as the pacing says while the helpers work.
template <pipeline_backend Backend>
template <class Profiling, class Program>
void chunk_pipeline<Backend>::run_chunks(Program& program) {
  constexpr bool whole = Profiling::scope == remap_scope::whole_chunk;
  start_run<Profiling>(program);
  const std::size_t n = run_.chunks;
  for (std::size_t i = 0; i < n; ++i) {
    harvest<Profiling>(false);
    if constexpr (whole) rearm_if_due(program, i);
    const bool active = run_.remap && control_.enabled();
    if (run_.remap && !active && !run_.abandoned_all) abandon_pending();
    if (active) schedule_ahead<Profiling>(program, i);
    chunk_task* task = tasks_[i].get();
    if (task && active) wait_for_chunk<Profiling>(program, *task, i);
    if constexpr (whole)
      if (active) speculate(program, i);  // deterministic once the profiled remap is complete
    const bool ready = launchable<Profiling>(program, task, active);
    const launch_result l = launch<Profiling>(program, i, task, ready);
    if (task) after_launch<Profiling>(program, i, *task, l);
    stats_.iterations[i].launch_ms = static_cast<double>(now() - run_start_ns_) * 1e-6;
    chunk_task* next = i + 1 < n ? tasks_[i + 1].get() : nullptr;
    if (next && l.timed && control_.enabled()) pace<Profiling>(program, i, *next, l);
    if constexpr (whole) await_verdict(program, i, l);
    tasks_[i].reset();
    launched_ = i + 1;
  }
  finish_run<Profiling>();
}

}  // namespace microsched::pipeline

#include "microsched/pipeline/detail/chunk_pipeline_launch.inl"
#include "microsched/pipeline/detail/chunk_pipeline_record.inl"
#include "microsched/pipeline/detail/chunk_pipeline_submit.inl"
