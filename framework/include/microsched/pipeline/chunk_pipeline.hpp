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
//! The driver is pure C++ over two concepts, so its threading is tested under ThreadSanitizer
//! with a simulated GPU: a `pipeline_backend` (streams and events; cuda_backend.hpp is the real
//! one) and a `chunk_program` (the user's transformation, copies and launches), declared in
//! chunk_program.hpp; the arguments are in pipeline_arguments.hpp.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <deque>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "microsched/pipeline/adaptive_control.hpp"
#include "microsched/pipeline/chunk_program.hpp"
#include "microsched/pipeline/chunk_share.hpp"
#include "microsched/error.hpp"
#include "microsched/pipeline/detail/poll_pause.hpp"
#include "microsched/pipeline/host_load.hpp"
#include "microsched/pipeline/pipeline_arguments.hpp"
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

  //! Runs every chunk through the pipeline and returns what happened. Errors of the
  //! transformation are recorded and the chunk runs the original kernel; errors of the backend
  //! or of a launch propagate after the helper threads have stopped.
  template <chunk_program<Backend> Program>
  const pipeline_statistics& run(Program& program);

  [[nodiscard]] const pipeline_statistics& statistics() const noexcept { return stats_; }

 private:
  using clock = std::chrono::steady_clock;

  struct chunk_task {
    std::size_t chunk = 0;
    int slot = 0;
    double ratio = 0;
    std::size_t transformed = 0;
    std::size_t elements = 0;
    int segments = 1;
    int pieces_per_segment = 1;
    std::vector<std::size_t> bounds;  // (pieces + 1) piece boundaries
    std::unique_ptr<std::atomic<int>[]> pieces_left;  // per segment
    std::atomic<int> pieces_finished{0};
    std::atomic<bool> cancel{false};
    std::atomic<bool> failed{false};
    std::atomic<long long> start_ns{0};
    std::atomic<long long> end_ns{0};
    std::vector<transform_outcome> outcomes;  // one per piece, written by that piece only
    std::mutex error_mutex;
    std::string error;
    // main thread only
    int segments_uploaded = 0;
    bool copy_recorded = false;
    int copy_event = -1;

    [[nodiscard]] int pieces() const { return segments * pieces_per_segment; }
    [[nodiscard]] bool all_finished() const {
      return pieces_finished.load(std::memory_order_acquire) == pieces();
    }
    [[nodiscard]] bool segment_ready(int s) const {
      return pieces_left[s].load(std::memory_order_acquire) == 0;
    }
  };

  struct slot_state {
    std::shared_ptr<chunk_task> task;  // last task that used this slot
    int released_event = -1;           // compute stream: last optimised kernel reading the slot
    bool released_recorded = false;
  };

  struct launch_events {
    int start = -1;
    int end = -1;
  };

  [[nodiscard]] static long long now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now().time_since_epoch())
        .count();
  }

  template <class Program>
  void choose_method(Program& program);
  template <class Program>
  bool submit(Program& program, std::size_t chunk);
  //! False when the chunk was selected but its slot is still busy (try again later).
  template <class Program>
  bool consider(Program& program, std::size_t chunk, double share);
  //! Whether chunk `task` can run optimised now. All-or-nothing methods: its transformation is
  //! complete and every upload is enqueued (the compute stream waits for the copy on the GPU: a
  //! copy queued behind an original chunk's input copy would otherwise keep a finished remap
  //! from its launch). Partial methods (the paper's rule) and wait_for_remap: the copy has completed.
  [[nodiscard]] bool can_launch(chunk_task& task) {
    if (task.failed.load(std::memory_order_acquire) || !task.copy_recorded) return false;
    return (!partial_ && !args_.wait_for_remap) || backend_.query(task.copy_event);
  }
  template <class Program>
  void progress_uploads(Program& program, chunk_task& task);
  void harvest(bool all);
  [[nodiscard]] double transform_ms(const chunk_task& task) const;
  void abandon(chunk_task& task) { task.cancel.store(true, std::memory_order_release); }
  void finish_task_record(std::size_t iteration, chunk_task& task);

  Backend& backend_;
  pipeline_arguments args_;
  run_backoff backoff_;               // across runs: original loops after a pipelined run lost
  pipeline_statistics stats_;
  adaptive_controller control_{};
  std::unique_ptr<worker_pool> pool_;
  int method_ = -1;
  bool partial_ = true;
  int depth_ = 0;
  double ttr_sum_ = 0, opt_sum_ = 0;  // bounded wait: transformation and optimised kernel times
  int ttr_count_ = 0, opt_count_ = 0;
  std::vector<slot_state> slots_;
  std::vector<std::shared_ptr<chunk_task>> tasks_;  // per chunk
  std::vector<launch_events> ring_;
  std::deque<std::pair<std::size_t, std::size_t>> timed_;  // (iteration, ring slot) not harvested
  std::size_t timed_launches_ = 0;
  int harvested_end_ = -1;             // end event of the last harvested launch (-1: none)
  std::size_t harvested_iteration_ = 0;  // its iteration
  std::vector<int> copy_events_;      // one per slot, reused across runs
  std::vector<int> released_events_;  // one per slot, reused across runs
  // All-or-nothing methods: chunks are considered in order; the chunk share r picks which ones
  // the helpers transform (credit += r per chunk considered, transformed when credit >= 1).
  std::size_t next_considered_ = 0;
  std::size_t launched_ = 0;  // chunks launched so far in this run (slots of earlier ones are free)
  std::size_t guard_from_ = 0;  // first iteration whose step the loss guard judges
  long long run_start_ns_ = 0;
  chunk_share share_;  // which chunks the helpers transform, and why the others were passed over
};

// ---------------------------------------------------------------------------------------------
// Implementation

template <pipeline_backend Backend>
template <class Program>
void chunk_pipeline<Backend>::choose_method(Program& program) {
  const std::vector<remap_method> methods = program.methods();
  const int wanted = args_.depth + 1;  // chunk i+Δ is transformed while chunk i's slot is read
  method_ = -1;
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
      fit = per_slot == 0 ? static_cast<std::size_t>(wanted) : (args_.memory_limit - fixed) / per_slot;
    if (fit < 1) {
      note(methods[m].name + " over the memory cap (needs " + std::to_string(method_bytes(methods[m], 1)) +
           " B for one slot, limit " + std::to_string(args_.memory_limit) + " B)");
      continue;
    }
    method_ = static_cast<int>(m);
    partial_ = methods[m].partial;
    const int slots = static_cast<int>(std::min<std::size_t>(fit, static_cast<std::size_t>(wanted)));
    depth_ = std::max(1, std::min(args_.depth, slots));
    stats_.method = methods[m].name;
    stats_.slots = slots;
    stats_.depth = depth_;
    stats_.method_index = static_cast<int>(m);
    stats_.host_bytes =
        methods[m].host_bytes_fixed + methods[m].host_bytes_per_slot * static_cast<std::size_t>(slots);
    stats_.device_bytes =
        methods[m].device_bytes_fixed + methods[m].device_bytes_per_slot * static_cast<std::size_t>(slots);
    if (m > 0) note("took " + methods[m].name);
    program.prepare(method_, slots);
    slots_.assign(static_cast<std::size_t>(slots), slot_state{});
    while (released_events_.size() < static_cast<std::size_t>(slots)) {  // made once, reused
      copy_events_.push_back(backend_.make_event());
      released_events_.push_back(backend_.make_event());
    }
    for (int s = 0; s < slots; ++s)
      slots_[static_cast<std::size_t>(s)].released_event = released_events_[static_cast<std::size_t>(s)];
    return;
  }
  stats_.method.clear();
  stats_.method_index = -1;
  stats_.slots = 0;
  stats_.depth = 0;
}

template <pipeline_backend Backend>
template <class Program>
bool chunk_pipeline<Backend>::consider(Program& program, std::size_t chunk, double share) {
  // Chunk share (chunk_share.hpp): passed over, or selected and submitted, or no slot free.
  if (!share_.take(chunk, share)) return true;
  if (submit(program, chunk)) return true;
  share_.slot_busy(chunk);
  return false;
}

template <pipeline_backend Backend>
template <class Program>
bool chunk_pipeline<Backend>::submit(Program& program, std::size_t chunk) {
  // The slot's host staging may be rewritten only when the previous task's chunk was launched
  // (or abandoned), every piece of it has returned and its copy has left the host buffer.
  auto reusable = [&](slot_state& st) {
    if (!st.task) return true;
    chunk_task& t = *st.task;
    if (t.chunk >= launched_ || !t.all_finished()) return false;
    if (t.segments_uploaded > 0 && !t.copy_recorded) {  // abandoned between two segment copies
      backend_.record(t.copy_event, backend_.copy_stream());
      t.copy_recorded = true;
    }
    return !t.copy_recorded || backend_.query(t.copy_event);
  };
  // Partial methods: slot chunk % slots, as in the paper. All-or-nothing methods select a share
  // of the chunks, so any free slot (with a fixed slot, a selected chunk could find the slot of
  // chunk - slots still copying while the others idle: slot-busy, run 14).
  int slot = static_cast<int>(chunk % slots_.size());
  if (!partial_) {
    // Prefer a slot whose last optimised kernel has run: the upload waits for it on the copy
    // stream, and a wait for a kernel still queued behind originals holds every later upload
    // (0.2-0.25 ms GPU stalls in run 14's call 6).
    slot = -1;
    for (int pass = 0; pass < 2 && slot < 0; ++pass)
      for (std::size_t k = 0; k < slots_.size() && slot < 0; ++k) {
        slot_state& st = slots_[(chunk + k) % slots_.size()];
        if (pass == 0 && st.released_recorded && !backend_.query(st.released_event)) continue;
        if (reusable(st)) slot = static_cast<int>((chunk + k) % slots_.size());
      }
    if (slot < 0) return false;  // every slot busy: slot_busy
  } else if (!reusable(slots_[static_cast<std::size_t>(slot)])) {
    return false;  // chunk runs the original kernel: slot_busy
  }
  slot_state& state = slots_[static_cast<std::size_t>(slot)];
  const std::size_t elements = program.chunk_elements(chunk);
  const double ratio = control_.ratio();
  const auto g = static_cast<std::size_t>(args_.granularity);
  std::size_t m = static_cast<std::size_t>(ratio * static_cast<double>(elements));
  m = ratio >= 1.0 || !partial_ ? elements : (m / g) * g;
  if (m == 0) return false;

  auto task = std::make_shared<chunk_task>();
  task->chunk = chunk;
  task->slot = slot;
  task->ratio = ratio;
  task->transformed = m;
  task->elements = elements;
  task->copy_event = copy_events_[static_cast<std::size_t>(slot)];
  const std::size_t units = (m + g - 1) / g;
  task->segments = static_cast<int>(std::max<std::size_t>(
      1, std::min<std::size_t>(static_cast<std::size_t>(control_.segments()), units)));
  // An all-or-nothing chunk is worth nothing until its last piece ends: its pieces go to every
  // helper (lowest latency; the pool holds threads_per_chunk × Δ helpers, so chunks still
  // overlap and the throughput is the same). Partial methods keep threads_per_chunk per chunk.
  const auto per_segment = static_cast<std::size_t>(
      partial_ ? args_.threads_per_chunk
               : std::max(args_.threads_per_chunk, pool_->size() / std::max(1, task->segments)));
  task->pieces_per_segment = static_cast<int>(std::max<std::size_t>(
      1, std::min<std::size_t>(per_segment, units / static_cast<std::size_t>(task->segments))));
  const int pieces = task->pieces();
  bool weighted = false;
  if constexpr (weighted_pieces<Program>) {
    task->bounds = program.piece_bounds(chunk, m, pieces, g);
    weighted = valid_piece_bounds(task->bounds, m, pieces, g);
  }
  if (!weighted) task->bounds = equal_piece_bounds(m, pieces, g);
  task->pieces_left = std::make_unique<std::atomic<int>[]>(static_cast<std::size_t>(task->segments));
  for (int s = 0; s < task->segments; ++s) task->pieces_left[s].store(task->pieces_per_segment);
  task->outcomes.assign(static_cast<std::size_t>(pieces), transform_outcome{});

  state.task = task;
  tasks_[chunk] = task;
  std::vector<std::function<void()>> jobs;
  jobs.reserve(static_cast<std::size_t>(pieces));
  for (int p = 0; p < pieces; ++p) {
    jobs.emplace_back([task, p, &program, method = method_] {
      chunk_task& t = *task;
      const auto piece = static_cast<std::size_t>(p);
      if (!t.cancel.load(std::memory_order_acquire)) {
        long long expected = 0;
        t.start_ns.compare_exchange_strong(expected, now_ns(), std::memory_order_acq_rel);
        try {
          transform_job job{t.chunk, t.slot, method, t.bounds[piece], t.bounds[piece + 1],
                            t.transformed, t.elements, &t.cancel};
          t.outcomes[piece] = program.transform(job);
        } catch (const std::exception& e) {
          const std::lock_guard lock(t.error_mutex);
          if (t.error.empty()) t.error = e.what();
          t.failed.store(true, std::memory_order_release);
          t.cancel.store(true, std::memory_order_release);
        } catch (...) {
          const std::lock_guard lock(t.error_mutex);
          if (t.error.empty()) t.error = "unknown exception in the transformation";
          t.failed.store(true, std::memory_order_release);
          t.cancel.store(true, std::memory_order_release);
        }
        long long end = now_ns();
        long long seen = t.end_ns.load(std::memory_order_relaxed);
        while (seen < end && !t.end_ns.compare_exchange_weak(seen, end, std::memory_order_acq_rel)) {
        }
      }
      t.pieces_left[p / t.pieces_per_segment].fetch_sub(1, std::memory_order_acq_rel);
      t.pieces_finished.fetch_add(1, std::memory_order_acq_rel);
    });
  }
  pool_->submit(std::move(jobs));  // one lock, every helper woken at once
  return true;
}

template <pipeline_backend Backend>
template <class Program>
void chunk_pipeline<Backend>::progress_uploads(Program& program, chunk_task& task) {
  if (task.failed.load(std::memory_order_acquire) || task.cancel.load(std::memory_order_acquire))
    return;
  slot_state& state = slots_[static_cast<std::size_t>(task.slot)];
  while (task.segments_uploaded < task.segments && task.segment_ready(task.segments_uploaded)) {
    if (task.failed.load(std::memory_order_acquire)) return;
    if (task.segments_uploaded == 0 && state.released_recorded)
      backend_.wait(backend_.copy_stream(), state.released_event);  // device staging reuse
    const int s = task.segments_uploaded;
    const auto first = static_cast<std::size_t>(s * task.pieces_per_segment);
    const auto last = first + static_cast<std::size_t>(task.pieces_per_segment);
    transform_job job{task.chunk,        task.slot,         method_,          task.bounds[first],
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
double chunk_pipeline<Backend>::transform_ms(const chunk_task& task) const {
  const long long start = task.start_ns.load(std::memory_order_acquire);
  if (start == 0) return 0;
  const long long end = task.all_finished() ? task.end_ns.load(std::memory_order_acquire) : now_ns();
  return static_cast<double>(std::max(0LL, end - start)) * 1e-6;
}

template <pipeline_backend Backend>
void chunk_pipeline<Backend>::finish_task_record(std::size_t iteration, chunk_task& task) {
  iteration_record& r = stats_.iterations[iteration];
  r.ratio = task.ratio;
  r.segments = task.segments;
  r.transform_ms = transform_ms(task);
  if (task.all_finished() && task.start_ns.load(std::memory_order_acquire) > 0)
    r.transform_end_ms = static_cast<double>(task.end_ns.load(std::memory_order_acquire) - run_start_ns_) * 1e-6;
  if (task.all_finished()) {
    for (const transform_outcome& o : task.outcomes) {
      r.metric_before += o.before;
      r.metric_after += o.after;
    }
  }
  if (task.failed.load(std::memory_order_acquire)) {
    const std::lock_guard lock(task.error_mutex);
    r.error = task.error;
  }
}

template <pipeline_backend Backend>
void chunk_pipeline<Backend>::harvest(bool all) {
  while (!timed_.empty()) {
    const auto [i, ring_slot] = timed_.front();
    launch_events& ev = ring_[ring_slot];
    if (!backend_.query(ev.end)) {
      if (!all) return;
      backend_.synchronize_event(ev.end);
    }
    iteration_record& r = stats_.iterations[i];
    r.kernel_ms = backend_.elapsed_ms(ev.start, ev.end);
    // Failures were reported at their launch; successes need the optimised kernel's time.
    if (r.optimised && (r.ratio >= 1.0 || !partial_)) {
      opt_sum_ += r.kernel_ms;
      ++opt_count_;
    }
    // Speculative chunks are not judged (see run()); an optimised one's kernel time is not an
    // original's either (until run 16 it went into Torg: ~0.01 ms among 0.34 ms originals pulled
    // unwrap's mean down to 0.26 ms early in a run, and the loss guard took normal steps for losses).
    if (r.optimised && !share_.speculative(i))
      control_.transformation(r.ratio, true, r.transform_ms, r.kernel_ms);
    else if (!r.optimised)
      control_.original_kernel(r.kernel_ms);
    // Loss guard (after profiling has judged this kernel): the GPU's whole step for this chunk,
    // end of chunk i-1 to end of chunk i. An idle GPU (the host waited), slower copies (helpers'
    // memory traffic) and extra copies all show here; a host that waited while the GPU was busy
    // costs nothing and shows nothing.
    if (harvested_end_ >= 0 && harvested_iteration_ + 1 == i) {
      r.step_ms = backend_.elapsed_ms(harvested_end_, ev.end);
      // A single-chunk profile's guard starts at the profiled chunk: the warm-up steps before it
      // are the original loop's own (their spread, ±10 % for unwrap's frame copies, exceeded
      // the early allowance of 2 % x Torg x 8 on its own; run 14).
      if (i >= guard_from_) control_.iteration_time(r.step_ms);
    }
    harvested_end_ = ev.end;
    harvested_iteration_ = i;
    timed_.pop_front();
  }
}

template <pipeline_backend Backend>
template <chunk_program<Backend> Program>
const pipeline_statistics& chunk_pipeline<Backend>::run(Program& program) {
  const std::size_t n = program.chunk_count();
  std::optional<detail::scoped_timer_slack> slack;  // poll steps of poll_interval, not 50 us more
  if (args_.poll_interval.count() > 0) slack.emplace(std::chrono::nanoseconds{1000});
  stats_ = pipeline_statistics{};
  stats_.memory_limit = args_.memory_limit;
  stats_.iterations.assign(n, iteration_record{});
  for (std::size_t i = 0; i < n; ++i) stats_.iterations[i].iteration = i;
  tasks_.assign(n, nullptr);
  share_.reset(n);
  next_considered_ = 0;
  launched_ = 0;
  slots_.clear();
  ttr_sum_ = opt_sum_ = 0;
  ttr_count_ = opt_count_ = 0;
  timed_.clear();
  timed_launches_ = 0;
  harvested_end_ = -1;
  run_start_ns_ = now_ns();
  if (ring_.empty()) {
    ring_.resize(static_cast<std::size_t>(std::max(64, 4 * args_.depth + 8)));
    for (launch_events& ev : ring_) {
      ev.start = backend_.make_event();
      ev.end = backend_.make_event();
    }
  }

  choose_method(program);
  adaptive_arguments control = args_.control;
  control.partial = partial_;
  // An all-or-nothing method profiles at r = 1, a whole chunk: only the chunk that profiling
  // judges is transformed until the control decides, so a remap that cannot keep up costs one
  // chunk's helper work, not Δ chunks' (results-pipeline.md, run 11: Δ = 3 whole reorders at
  // once slowed unwrap's frame copies). The first profiled chunk is min(Δ, 2): chunk 2 has two
  // kernel times, twice what a chunk the share selects has in steady state (it follows one
  // original), and chunks before it run the original kernel (until run 16 it was chunk Δ = 3:
  // one more original per run, ~5 % of unwrap's pipelined loop). A miss moves the profile on
  // by Δ (profile_attempts).
  const bool single_profile = !partial_ && args_.control.adaptive;
  const auto profile_lead = static_cast<std::size_t>(std::clamp(depth_, 1, 2));  // kernel times before it
  std::size_t profiled = std::min(profile_lead, n > 1 ? n - 1 : 1);
  // The window the control names when a profile misses: the profiled chunk's kernel times.
  control_ = adaptive_controller(control, single_profile ? static_cast<int>(profiled) : std::max(1, depth_));
  const int cores = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  if (method_ >= 0 && !pool_) {
    const int helpers = std::clamp(args_.threads_per_chunk * depth_, 1, std::max(1, cores - 1));
    pool_ = std::make_unique<worker_pool>(helpers, args_.helper_nice, args_.helper_spin);
  }
  stats_.helper_threads = pool_ ? pool_->size() : 0;
  stats_.helpers_active = stats_.helper_threads;
  // Host check (host_load.hpp): helpers only on cores nobody else wants; too few, no pipeline.
  std::string host_note;
  auto host_allows = [&] {
    if (!args_.host_check || !pool_) return true;
    const int runnable = args_.host_runnable ? args_.host_runnable() : host_runnable_threads().value_or(-1);
    if (runnable < 0) return true;
    const int others = std::max(0, runnable - 1 - pool_->awake());
    const int usable = helpers_for_host(cores, others, pool_->size());
    const int least = args_.host_min_helpers > 0 ? args_.host_min_helpers : std::max(1, pool_->size() / 4);
    stats_.host_others = others;
    stats_.helpers_active = usable;
    if (usable < least) {
      host_note = "host busy: " + std::to_string(others) + " other runnable threads on " + std::to_string(cores) +
                  " cores leave " + std::to_string(usable) + " helper(s), fewer than " + std::to_string(least);
      return false;
    }
    pool_->set_active(usable);
    return true;
  };
  // Back-off first (run_backoff.hpp): a run that must launch the original loop needs no host check.
  const bool backed_off = method_ >= 0 && backoff_.skip_run();
  const bool host_busy = method_ >= 0 && !backed_off && !host_allows();
  const bool remap = method_ >= 0 && !host_busy && !backed_off;

  // Whatever happens, no helper thread may touch the program after run() returns.
  struct stop_helpers {
    chunk_pipeline& self;
    ~stop_helpers() {
      for (auto& t : self.tasks_)
        if (t) self.abandon(*t);
      for (auto& slot : self.slots_)
        if (slot.task) self.abandon(*slot.task);
      if (self.pool_) self.pool_->wait_idle();
    }
  } stop{*this};

  guard_from_ = single_profile ? profiled : 0;
  if (remap) {
    for (std::size_t c = 1; c <= static_cast<std::size_t>(depth_) && c < n; ++c) {
      if (partial_ || (single_profile && c == profiled))
        submit(program, c);  // warm-up: chunk 0 runs the original kernel
      else if (!single_profile)
        consider(program, c, control_.ratio());
    }
    next_considered_ = single_profile ? profiled + 1 : static_cast<std::size_t>(depth_) + 1;
  }
  // All-or-nothing methods. While a single-chunk profile waits for its verdict, the helpers would
  // idle from the end of the profiled remap until its kernel has run: once the profiled remap
  // has finished, the Δ chunks after it are selected speculatively with the
  // share the verdict will give at least, Torg / (Ttr + Torg) (Tsav <= Torg), and cancelled if
  // the control switches off; the main thread then does not drain the GPU queue for the verdict.
  // After the verdict, each iteration fills the window up to chunk i+Δ, from chunk i+2 on: chunk
  // i+1 is decided within one kernel time, too soon for a remap started now (results-pipeline.md,
  // run 14). Chunks passed over run the original kernel (chunk-share).
  bool profiled_launched = false;
  // A later profile (a retry after a miss, or re-arming): chunk `chunk` is profiled; the chunks
  // from `first_waiting` up to it run the original kernel meanwhile.
  auto profile_again = [&](std::size_t first_waiting, std::size_t chunk) {
    profiled = chunk;
    profiled_launched = false;
    guard_from_ = chunk;
    for (std::size_t c = first_waiting; c < chunk; ++c) share_.await_profile(c);
    next_considered_ = chunk + 1;
    submit(program, chunk);
  };
  auto skip_to = [&](std::size_t first) {
    for (; next_considered_ < std::min(first, n); ++next_considered_)
      share_.pass_over(next_considered_);
  };
  auto speculate = [&](std::size_t i) {
    if (partial_ || !single_profile || next_considered_ != profiled + 1) return;
    if (control_.state() != adaptive_controller::phase::profiling) return;
    const chunk_task* p = tasks_[profiled].get();
    if (p == nullptr || !p->all_finished() || p->failed.load(std::memory_order_acquire)) return;
    if (control_.original_mean_ms() <= 0) harvest(false);  // Torg from the warm-up kernels
    double torg = control_.original_mean_ms();
    // Kernel 0 still running: Torg is at least the time since it was launched (a lower bound
    // gives a smaller share).
    if (torg <= 0) torg = static_cast<double>(now_ns() - run_start_ns_) * 1e-6;
    const double share = std::clamp(torg / (transform_ms(*p) + torg), args_.control.min_ratio, 1.0);
    // Before the profiled chunk's launch the GPU still has the warm-up originals queued, so
    // the chunk after it has time too; after it, chunk i+1 is decided within one kernel time.
    if (profiled_launched) skip_to(i + 2);
    const std::size_t last = std::min(n - 1, profiled + static_cast<std::size_t>(depth_));
    for (; next_considered_ <= last && consider(program, next_considered_, share); ++next_considered_)
      share_.set_speculative(next_considered_);
  };
  auto fill_window = [&](std::size_t i) {
    skip_to(i + (depth_ >= 2 ? 2 : 1));
    const std::size_t last = std::min(n - 1, i + static_cast<std::size_t>(depth_));
    for (; next_considered_ <= last && consider(program, next_considered_, control_.ratio()); ++next_considered_) {
    }
  };
  // Pacing. The paper's main thread, after launching chunk i, waits until chunk i+1's copy is
  // ready or the GPU is done with chunk i: a chunk whose remap is not ready is then launched on
  // an empty GPU queue, which idles for the launch latency (~10-20 us, 3-6 % of unwrap's 0.33 ms
  // iteration). An all-or-nothing method with Δ >= 2 waits only until the GPU is done with chunk
  // i-1, so one chunk always stays queued and a miss costs what the original iteration costs;
  // its remap has Δ-1 kernel times plus the queued one. Partial methods keep the paper's pacing
  // (their profiling needs kernel i's time before more chunks are submitted).
  const bool queue_ahead = !partial_ && depth_ >= 2;
  int previous_end = -1;  // end event of the previous timed launch, -1: none

  bool abandoned_all = false;
  // Re-arming (adaptive_arguments::rearm_after, all-or-nothing methods): once per run, a control
  // that switched off profiles again rearm_after chunks later, so that one transient (a remap
  // that lost its core, a GPU step stalled by the host) does not cost the rest of the run.
  std::size_t off_at = n;     // iteration at which the control was first seen off
  std::string first_off;      // its reason, kept for the statistics once re-armed
  bool rearmed = false;
  bool rearm_refused = false;  // the host check found the cores busy at the re-arm point (host_note)
  for (std::size_t i = 0; i < n; ++i) {
    harvest(false);
    if (single_profile && !rearmed && args_.control.rearm_after > 0 && !control_.enabled()) {
      if (off_at == n) off_at = i;
      const std::size_t again = i + profile_lead;
      // The host check first: where the cores are taken now, a profile would cost, not pay.
      if (i >= off_at + static_cast<std::size_t>(args_.control.rearm_after) && again < n && !rearm_refused &&
          !host_allows())
        rearm_refused = true;
      if (i >= off_at + static_cast<std::size_t>(args_.control.rearm_after) && again < n && !rearm_refused) {
        harvest(true);  // what was timed before the shut-down stays with the old control
        first_off = control_.reason();
        control_ = adaptive_controller(control, static_cast<int>(again - i));
        rearmed = true;
        abandoned_all = false;
        harvested_end_ = -1;  // the guard's steps start again at the new profiled chunk
        profile_again(i, again);
      }
    }
    const bool active = remap && control_.enabled();
    if (remap && !active && !abandoned_all) {
      for (auto& t : tasks_)
        if (t) abandon(*t);
      abandoned_all = true;
    }
    if (active && partial_ && i > 0 && i + static_cast<std::size_t>(depth_) < n &&
        !(single_profile && control_.state() == adaptive_controller::phase::profiling))
      submit(program, i + static_cast<std::size_t>(depth_));
    if (active && !partial_) {
      if (single_profile && control_.state() == adaptive_controller::phase::profiling)
        speculate(i);
      else if (i > 0)
        fill_window(i);
    }

    // Launch chunk i: optimised only if its remap and copy are complete.
    iteration_record& r = stats_.iterations[i];
    chunk_task* task = tasks_[i].get();
    if (task && active) progress_uploads(program, *task);
    while (args_.wait_for_remap && task && active && !task->failed.load(std::memory_order_acquire) &&
           !can_launch(*task)) {
      detail::poll_pause(args_.poll_interval);
      progress_uploads(program, *task);
    }
    if (args_.wait_budget > 0 && task && active && opt_count_ > 0 && ttr_count_ > 0 &&
        control_.original_mean_ms() > 0 && !task->failed.load(std::memory_order_acquire)) {
      const double saving = control_.original_mean_ms() - opt_sum_ / opt_count_;
      const double budget_ms = args_.wait_budget * saving;
      const long long start = task->start_ns.load(std::memory_order_acquire);
      const long long now = now_ns();
      const double expected_left_ms =
          ttr_sum_ / ttr_count_ - (start > 0 ? static_cast<double>(now - start) * 1e-6 : 0.0);
      if (budget_ms > 0 && expected_left_ms < budget_ms) {
        const long long deadline = now + static_cast<long long>(budget_ms * 1e6);
        while (!task->failed.load(std::memory_order_acquire) && !can_launch(*task) && now_ns() < deadline) {
          progress_uploads(program, *task);
          detail::poll_pause(args_.poll_interval);
        }
      }
    }
    // A single-chunk profile at chunk p has the p kernel times before it: queued pacing would
    // launch it after kernel p-2, one kernel time short (results-pipeline.md, run 11: 0.64 ms
    // reorder against ~0.66 ms); so before launching it, wait until it is ready or kernel p-1
    // ended too. The queue drains at most once.
    if (single_profile && queue_ahead && i == profiled && task && active && previous_end >= 0 &&
        control_.state() == adaptive_controller::phase::profiling) {
      while (!task->failed.load(std::memory_order_acquire) &&
             !can_launch(*task) && !backend_.query(previous_end)) {
        progress_uploads(program, *task);
        speculate(i);
        detail::poll_pause(args_.poll_interval);
      }
      progress_uploads(program, *task);
    }
    if (active) speculate(i);  // deterministic once the profiled remap is complete
    if (task && active) progress_uploads(program, *task);
    const bool ready = task && active && can_launch(*task);
    if (ready) {
      ttr_sum_ += transform_ms(*task);
      ++ttr_count_;
    }
    // Kernel times feed the adaptive control; once it is off (or nothing can be remapped) no
    // event is recorded, so the launches are exactly the original loop's.
    const bool timed = remap && control_.enabled();
    // One ring slot short of full: the last harvested end event must stay unrecorded until the
    // next launch is harvested (the loss guard reads it).
    if (timed && timed_.size() + 1 >= ring_.size()) harvest(true);
    const std::size_t ring_slot = timed_launches_ % ring_.size();
    launch_events& ev = ring_[ring_slot];
    const auto stream = backend_.compute_stream();
    if (timed) backend_.record(ev.start, stream);
    if (ready) {
      if (!partial_) backend_.wait(stream, task->copy_event);  // see can_launch
      transform_job job{task->chunk, task->slot, method_, 0, task->transformed, task->transformed,
                        task->elements};
      program.launch_optimised(job, stream);
      slot_state& state = slots_[static_cast<std::size_t>(task->slot)];
      backend_.record(state.released_event, stream);
      state.released_recorded = true;
      r.optimised = true;
      r.reason = fallback::none;
      if (i == profiled) profiled_launched = true;
    } else {
      program.launch_original(i, stream);
      r.optimised = false;
      if (i == profiled) profiled_launched = true;
      if (!remap) {
        r.reason = backed_off ? fallback::backoff : host_busy ? fallback::host_busy : fallback::memory_cap;
      } else if (!control_.enabled()) {
        r.reason = fallback::controller_off;
      } else if (task && task->failed.load(std::memory_order_acquire)) {
        r.reason = fallback::transform_failed;
      } else if (task) {
        r.reason = fallback::not_ready;
      } else if (share_.at(i) == chunk_share::mark::skipped) {
        r.reason = fallback::chunk_share;
      } else if (share_.at(i) == chunk_share::mark::awaiting_profile) {
        r.reason = fallback::awaiting_profile;
      } else if (i > static_cast<std::size_t>(depth_)) {
        r.reason = fallback::slot_busy;
      } else {
        r.reason = fallback::warm_up;
      }
    }
    const int waited_end = queue_ahead ? previous_end : ev.end;  // see "Pacing" above
    const int end_before = previous_end;  // kernel i-1 (just in time, below)
    if (timed) {
      backend_.record(ev.end, stream);
      timed_.emplace_back(i, ring_slot);
      ++timed_launches_;
    }
    previous_end = timed ? ev.end : -1;
    if (task) {
      if (!ready) abandon(*task);
      finish_task_record(i, *task);
      // A failure is known now (no kernel time needed): report it before the next launch, so a
      // control that switches off at profiling drains the GPU queue once, not twice. During
      // profiling, the warm-up chunks 1..Δ-1 had less than Δ kernel times: not judged; nor are
      // the speculative chunks of a single-chunk profile (the profiled chunk is judged, and a
      // speculative chunk launched before the verdict had less time than a chunk in steady state).
      // Nor after the verdict: they were selected at the profile's lower-bound share with a head
      // start, so their hits and misses say nothing about the share the control adjusts (a miss
      // lowered r from 0.53 to 0.43 and settled it there, host idle a third of the time; run 14).
      const bool judged = !share_.speculative(i) &&
                          (control_.state() != adaptive_controller::phase::profiling ||
                           (single_profile ? i == profiled : i >= static_cast<std::size_t>(depth_)));
      if (!ready && timed && judged) control_.transformation(r.ratio, false, r.transform_ms, 0);
      // The profiled chunk missed and the control allows another try (profile_attempts): profile
      // chunk i+Δ, which has Δ kernel times like the first; the chunks between run the original.
      if (single_profile && i == profiled && !ready && control_.enabled() &&
          control_.state() == adaptive_controller::phase::profiling) {
        if (i + static_cast<std::size_t>(depth_) < n)
          profile_again(i + 1, i + static_cast<std::size_t>(depth_));
        else
          control_.shut_down("profiling: the profiled chunk " + std::to_string(i) +
                             " missed its launch and no chunk is left to profile");
      }
    }
    r.launch_ms = static_cast<double>(now_ns() - run_start_ns_) * 1e-6;  // host timeline

    // gs_checkRemap(i+1): while the GPU runs chunk i, copy chunk i+1's finished segments; move on
    // when its copy is complete or the GPU is done with chunk i (queue_ahead: chunk i-1),
    // whichever comes first.
    chunk_task* next = i + 1 < n ? tasks_[i + 1].get() : nullptr;
    // While profiling a partial method, wait for kernel i itself, so its time reaches the control
    // before more chunks are submitted at the profiling ratio (a single-chunk profile submits
    // none). A control that just switched off waits for nothing.
    const bool profiling = control_.state() == adaptive_controller::phase::profiling && !single_profile;
    // All-or-nothing methods decide chunk i+1 just in time: once kernel i-1 has ended (kernel i
    // started), they wait until kernel i is expected to end less a margin (its mean time, Torg or
    // Topt, less max(20 us, 20 %)), so a remap of chunk i+1 has the whole of kernel i and the GPU
    // queue still never drains (a kernel i that ended stops the wait at once). With the chunk
    // share, chunk i is often an original (0.33 ms for unwrap) that queue_ahead gave away.
    double expected_ms = -1;
    if (!partial_ && end_before >= 0)
      expected_ms = r.optimised ? (opt_count_ > 0 ? opt_sum_ / opt_count_ : -1) : control_.original_mean_ms();
    const long long margin_ns = static_cast<long long>(std::max(0.02, 0.2 * expected_ms) * 1e6);
    long long started_ns = -1;  // host time kernel i-1 was seen ended
    if (next && timed && control_.enabled()) {
      while (true) {
        progress_uploads(program, *next);
        if (!partial_ && !(single_profile && control_.state() == adaptive_controller::phase::profiling))
          fill_window(i);  // a slot may have freed since the top of the iteration
        else
          speculate(i);  // the profiled remap may finish while this waits (the warm-up: ~0.5 ms
                         // of idle helpers per unwrap run until run 16)
        if (next->failed.load(std::memory_order_acquire)) break;
        // All-or-nothing: a ready chunk still waits for kernel i-1, so the host never runs more
        // than two launches ahead of the GPU (a host far ahead would find every slot still
        // waiting for its last kernel: slot-busy, run 14).
        if ((!profiling || args_.wait_for_remap) && can_launch(*next) &&
            (partial_ || end_before < 0 || args_.wait_for_remap || backend_.query(end_before)))
          break;
        if (!args_.wait_for_remap && expected_ms > 0) {
          if (started_ns < 0 && backend_.query(end_before)) started_ns = now_ns();
          if (started_ns >= 0 &&
              now_ns() >= started_ns + static_cast<long long>(expected_ms * 1e6) - margin_ns)
            break;
          if (backend_.query(ev.end)) break;
        } else if (!args_.wait_for_remap && (waited_end < 0 || backend_.query(waited_end))) {
          break;  // GPU done with chunk i (queue_ahead: with chunk i-1; nothing earlier: no wait)
        }
        detail::poll_pause(args_.poll_interval);
      }
    }
    // A single-chunk profile whose chunk ran optimised waits for kernel i, so the decision (which
    // needs the optimised kernel's time) arrives before the host runs ahead of chunks that could
    // be remapped: one drained iteration, only when profiling succeeded.
    // With speculation under way the chunks ahead are being remapped already: no need to drain.
    if (single_profile && timed && i >= profiled && next_considered_ == profiled + 1 &&
        control_.state() == adaptive_controller::phase::profiling) {
      while (!backend_.query(ev.end)) {
        speculate(i);
        detail::poll_pause(args_.poll_interval);
      }
    }
    tasks_[i].reset();
    launched_ = i + 1;
  }
  backend_.synchronize();
  harvest(true);
  stats_.original_ms = control_.original_mean_ms();
  stats_.run_ms = static_cast<double>(now_ns() - run_start_ns_) * 1e-6;
  if (remap) {
    const bool futile = stats_.optimised_count() == 0 && !control_.enabled();
    stats_.lost = backoff_.pipelined_run(stats_.run_ms, stats_.original_ms, n, futile);
  } else {
    backoff_.original_run(stats_.run_ms, n);
  }
  stats_.original_estimate_ms = backoff_.reference_ms(n);
  if (remap) {
    stats_.controller_state = to_string(control_.state());
    stats_.controller_reason = control_.reason();
    if (rearm_refused)
      stats_.controller_reason += "; not re-armed: " + host_note;
    if (rearmed)
      stats_.controller_reason = "re-armed at chunk " + std::to_string(off_at + static_cast<std::size_t>(args_.control.rearm_after)) +
                                 " after: " + first_off + (control_.enabled() ? "" : "; then: " + control_.reason());
  } else {  // the control never ran: say so rather than the phase it was created in
    stats_.controller_state = "off";
    stats_.controller_reason = host_busy ? host_note : "nothing remapped: no method fits the memory limit";
    if (backed_off)
      stats_.controller_reason =
          (backoff_.last_futile() ? std::string("backing off: the last pipelined run optimised no chunk")
                                  : "backing off: the last pipelined run took " + std::to_string(backoff_.last_run_ms()) +
                              " ms, the original loop about " + std::to_string(backoff_.last_reference_ms()) + " ms") +
          "; " + std::to_string(backoff_.runs_left()) + " more run(s) before the next try";
  }
  if (stats_.lost)
    stats_.controller_reason +=
        (backoff_.last_futile() ? std::string("; no chunk optimised")
                      : "; the run was slower than the original loop (" + std::to_string(stats_.run_ms) +
                            " ms against about " + std::to_string(stats_.original_estimate_ms) + " ms)") +
        ": the next " + std::to_string(backoff_.runs_left()) + " run(s) launch the original loop";
  if (pool_) {
    if (auto error = pool_->take_error()) {
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        stats_.controller_reason += std::string(" (helper error: ") + e.what() + ")";
      } catch (...) {
      }
    }
  }
  return stats_;
}

}  // namespace microsched::pipeline
