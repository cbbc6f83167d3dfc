// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file kernel_split_run.inl
//! split_loop's runs (kernel_split.hpp declares them; this file is included at its end).

namespace microsched::pipeline {

template <pipeline_backend Backend>
template <split_program<Backend> Program>
const pipeline_statistics& split_loop<Backend>::run(Program& program) {
  const std::size_t iterations = program.iteration_count();
  const std::size_t n = program.elements();
  const kernel_split split = split_kernel(n, args_.ratio, args_.granularity);
  const bool remap = !split.optimised.empty();
  begin_run(iterations, remap);

  std::shared_ptr<task> previous;
  const detail::helper_stop stop(
      pool_, [&previous] {  // no helper may touch the program after run() returns
        if (previous) previous->abandon();
      });
  const detail::poller poll(args_.poll_interval);

  const long long run_start = detail::host_now_ns(backend_);
  bool on = remap;
  int misses = 0;
  for (std::size_t i = 0; i < iterations; ++i) {
    iteration_record& r = stats_.iterations[i];
    r.iteration = i;
    // An abandoned remap still running may read the fetched data or write the staging this
    // iteration would reuse: the iteration runs unsplit rather than wait for it.
    const bool busy = on && previous && !previous->finished();
    if (!on || busy) {
      run_unsplit(program, i, n, busy, run_start, r);
      if (busy && args_.give_up_after > 0 && ++misses >= args_.give_up_after) {
        on = false;
        shut_down(misses);
      }
      continue;
    }
    r.ratio = static_cast<double>(split.optimised.size()) /
              static_cast<double>(std::max<std::size_t>(1, n));
    r.segments = 1;
    const bool ready = run_split(program, i, split, run_start, poll, previous, r);
    misses = ready ? 0 : misses + 1;
    if (!ready && args_.give_up_after > 0 && misses >= args_.give_up_after) {
      on = false;  // automatic shut-down: from now on, the original loop's launches
      shut_down(misses);
    }
  }
  backend_.synchronize();
  return stats_;
}

template <pipeline_backend Backend>
void split_loop<Backend>::begin_run(std::size_t iterations, bool remap) {
  stats_ = pipeline_statistics{};
  stats_.method = "kernel split";
  stats_.slots = 1;
  stats_.depth = 0;  // nothing is transformed ahead: the remap overlaps the first part only
  stats_.controller_state = "fixed";  // r fixed by the caller; "off" after the shut-down
  stats_.iterations.assign(iterations, iteration_record{});
  if (fetched_ < 0) {
    fetched_ = backend_.make_event();
    original_done_ = backend_.make_event();
    copied_ = backend_.make_event();
    iteration_done_ = backend_.make_event();
  }
  if (remap && !pool_) pool_ = std::make_unique<worker_pool>(args_.threads);
  stats_.helper_threads = pool_ ? pool_->size() : 0;
  if (!remap) {
    stats_.controller_state = "off";
    stats_.controller_reason = "r = 0: nothing remapped";
  }
}

template <pipeline_backend Backend>
void split_loop<Backend>::shut_down(int misses) {
  stats_.controller_state = "off";
  stats_.controller_reason = "remap missed " + std::to_string(misses) + " consecutive iterations";
}

template <pipeline_backend Backend>
template <class Program>
void split_loop<Backend>::run_unsplit(Program& program, std::size_t i, std::size_t n, bool busy,
                                      long long run_start, iteration_record& r) {
  const auto compute = backend_.compute_stream();
  program.launch_original(i, split_range{0, n}, compute);
  if (busy) backend_.record(iteration_done_, compute);  // the next fetch reads what it writes
  r.reason = busy ? fallback::slot_busy : fallback::controller_off;
  r.launch_ms = static_cast<double>(detail::host_now_ns(backend_) - run_start) * 1e-6;
}

template <pipeline_backend Backend>
template <class Program>
bool split_loop<Backend>::run_split(Program& program, std::size_t i, const kernel_split& split,
                                    long long run_start, const detail::poller& poll,
                                    std::shared_ptr<task>& previous, iteration_record& r) {
  const auto compute = backend_.compute_stream();
  const auto copy = backend_.copy_stream();
  // First part: the original kernel on [0, n - m).
  if (!split.original.empty()) program.launch_original(i, split.original, compute);
  backend_.record(original_done_, compute);

  // What the second part's remap reads was written by iteration i-1: copy it back once that
  // iteration ended (in parallel with the first part), then remap on the helper threads.
  const split_job whole{i, split.optimised, nullptr};
  if (i > 0) backend_.wait(copy, iteration_done_);
  program.fetch(whole, copy);
  backend_.record(fetched_, copy);
  auto t = std::make_shared<task>();
  previous = t;  // before any helper runs: run()'s helper_stop abandons it
  t->bounds = split_pieces(split.optimised, args_.threads, args_.granularity);
  t->outcomes.assign(static_cast<std::size_t>(args_.threads), transform_outcome{});
  const bool ready = remap_second_part(program, t, whole, poll);

  // Second part: optimised if its remap is on the device, otherwise the original kernel.
  if (ready) {
    program.launch_optimised(whole, compute);
    r.optimised = true;
    r.reason = fallback::none;
  } else {
    t->abandon();
    // The fetch reads what this launch writes: order them (a no-op once the fetch is done).
    backend_.wait(compute, fetched_);
    program.launch_original(i, split.optimised, compute);
    r.reason = t->failed.load(std::memory_order_acquire) ? fallback::transform_failed
                                                         : fallback::not_ready;
  }
  backend_.record(iteration_done_, compute);
  r.launch_ms = static_cast<double>(detail::host_now_ns(backend_) - run_start) * 1e-6;
  if (t->start_ns.load(std::memory_order_acquire) > 0)
    r.transform_ms = t->elapsed_ms(t->finished());
  if (ready) t->add_outcomes(r);
  t->report_error(r);
  return ready;
}

template <pipeline_backend Backend>
template <class Program>
bool split_loop<Backend>::remap_second_part(Program& program, const std::shared_ptr<task>& t,
                                            const split_job& whole, const detail::poller& poll) {
  const auto copy = backend_.copy_stream();
  const std::size_t i = whole.iteration;
  bool submitted = false, uploaded = false;
  while (true) {
    if (!submitted && backend_.query(fetched_)) {
      t->left.store(args_.threads, std::memory_order_release);
      for (int p = 0; p < args_.threads; ++p) {
        pool_->submit([t, p, i, &program] {
          const auto k = static_cast<std::size_t>(p);
          if (t->bounds[k] < t->bounds[k + 1])
            t->run_piece(k, [&] {
              return program.transform(split_job{i, {t->bounds[k], t->bounds[k + 1]}, &t->cancel});
            });
          t->left.fetch_sub(1, std::memory_order_acq_rel);
        });
      }
      submitted = true;
    }
    if (submitted && t->has_failed()) return false;
    if (submitted && !uploaded && t->finished()) {
      program.upload(whole, copy);
      backend_.record(copied_, copy);
      uploaded = true;
    }
    if (uploaded && backend_.query(copied_)) return true;
    // The first part ended: the GPU would wait, so go on without the remap.
    if (backend_.query(original_done_)) return false;
    poll.pause();
  }
}

}  // namespace microsched::pipeline
