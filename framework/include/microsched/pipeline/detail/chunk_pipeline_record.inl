// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file chunk_pipeline_record.inl
//! chunk_pipeline: what a run measures and reports — kernel times harvested from the events (Torg,
//! Topt and the loss guard's GPU steps), each chunk's record, the back-off's verdict and why the
//! control ended where it did. Included by chunk_pipeline.hpp only.

#include <exception>
#include <string>

namespace microsched::pipeline {

//! Kernel times of finished launches, oldest first: Torg, Topt and the GPU steps the loss guard
//! judges. `all`: wait for every timed launch.
template <pipeline_backend Backend>
template <class Profiling>
void chunk_pipeline<Backend>::harvest(bool all) {
  while (!timed_.empty()) {
    const auto [i, ring_slot] = timed_.front();
    const detail::launch_events& ev = ring_[ring_slot];
    if (!backend_.query(ev.end)) {
      if (!all) return;
      backend_.synchronize_event(ev.end);
    }
    iteration_record& r = stats_.iterations[i];
    r.kernel_ms = backend_.elapsed_ms(ev.start, ev.end);
    // Failures were reported at their launch; successes need the optimised kernel's time.
    if (r.optimised && Profiling::times_optimised_kernel(r.ratio)) {
      opt_sum_ += r.kernel_ms;
      ++opt_count_;
    }
    // A speculative chunk is not judged (after_launch); an optimised kernel's time is not Torg.
    if (r.optimised && !share_.speculative(i))
      control_.transformation(r.ratio, true, r.transform_ms, r.kernel_ms);
    else if (!r.optimised)
      control_.original_kernel(r.kernel_ms);
    // Loss guard: the GPU's whole step for this chunk, end of chunk i-1 to end of chunk i. An
    // idle GPU (the host waited), slower copies (helpers' memory traffic) and extra copies all
    // show here; a host that waited while the GPU was busy costs nothing and shows nothing. A
    // single-chunk profile's guard starts at the profiled chunk: the warm-up steps before it are
    // the original loop's own, whose spread alone may exceed the early allowance.
    if (harvested_end_ >= 0 && harvested_iteration_ + 1 == i) {
      r.step_ms = backend_.elapsed_ms(harvested_end_, ev.end);
      if (i >= guard_from_) control_.iteration_time(r.step_ms);
    }
    harvested_end_ = ev.end;
    harvested_iteration_ = i;
    timed_.pop_front();
  }
}

template <pipeline_backend Backend>
void chunk_pipeline<Backend>::finish_task_record(std::size_t iteration, chunk_task& task) {
  iteration_record& r = stats_.iterations[iteration];
  r.ratio = task.ratio;
  r.segments = task.segments;
  r.transform_ms = task.transform_ms();
  const bool finished = task.all_finished();
  if (finished && task.start_ns.load(std::memory_order_acquire) > 0)
    r.transform_end_ms =
        static_cast<double>(task.end_ns.load(std::memory_order_acquire) - run_start_ns_) * 1e-6;
  if (finished) task.add_outcomes(r);
  task.report_error(r);
}

//! After the last launch: every kernel time, the back-off's verdict on the run, and why the
//! control ended where it did.
template <pipeline_backend Backend>
template <class Profiling>
void chunk_pipeline<Backend>::finish_run() {
  const std::size_t n = run_.chunks;
  backend_.synchronize();
  harvest<Profiling>(true);
  stats_.original_ms = control_.original_mean_ms();
  stats_.run_ms = static_cast<double>(now() - run_start_ns_) * 1e-6;
  if (run_.remap) {
    const bool off = !control_.enabled();
    const bool futile = stats_.optimised_count() == 0 && off;
    stats_.lost = backoff_.pipelined_run(stats_.run_ms, stats_.original_ms, n, futile, off);
  } else {
    backoff_.original_run(stats_.run_ms, n);
  }
  stats_.original_estimate_ms = backoff_.reference_ms(n);
  report_controller();
}

template <pipeline_backend Backend>
void chunk_pipeline<Backend>::report_controller() {
  if (run_.remap) {
    stats_.controller_state = to_string(control_.state());
    stats_.controller_reason = control_.reason();
    if (run_.rearm_refused) stats_.controller_reason += "; not re-armed: " + run_.host_note;
    if (run_.rearmed)
      stats_.controller_reason =
          "re-armed at chunk " +
          std::to_string(run_.off_at + static_cast<std::size_t>(args_.control.rearm_after)) +
          " after: " + run_.first_off + (control_.enabled() ? "" : "; then: " + control_.reason());
  } else {  // the control never ran: say so rather than the phase it was created in
    stats_.controller_state = "off";
    stats_.controller_reason =
        run_.host_busy ? run_.host_note : "nothing remapped: no method fits the memory limit";
    if (run_.backed_off)
      stats_.controller_reason =
          (backoff_.last_futile()
               ? std::string("backing off: the last pipelined run optimised no chunk")
               : "backing off: the last pipelined run took " +
                     std::to_string(backoff_.last_run_ms()) + " ms, the original loop about " +
                     std::to_string(backoff_.last_reference_ms()) + " ms") +
          "; " + std::to_string(backoff_.runs_left()) + " more run(s) before the next try";
  }
  if (stats_.lost)
    stats_.controller_reason +=
        (backoff_.last_futile()
             ? std::string("; no chunk optimised")
             : "; the run was slower than the original loop (" + std::to_string(stats_.run_ms) +
                   " ms against about " + std::to_string(stats_.original_estimate_ms) + " ms)") +
        ": the next " + std::to_string(backoff_.runs_left()) + " run(s) launch the original loop";
  if (!pool_) return;
  if (const std::exception_ptr error = pool_->take_error()) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      stats_.controller_reason += std::string(" (helper error: ") + e.what() + ")";
    } catch (...) {
    }
  }
}

}  // namespace microsched::pipeline
