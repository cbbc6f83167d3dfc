// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file kernel_split.hpp
//! Kernel splitting for loop-carried dependences (zhang2011 §5.2, Figure 7).
//!
//! chunk_pipeline transforms chunk i+Δ ahead of the GPU, which needs chunks that do not depend on
//! earlier iterations. When a loop works on one data set and iteration i+1 reads what iteration i
//! wrote, nothing can be remapped ahead: the remap of iteration i+1 can only start once iteration
//! i has ended. Kernel splitting hides it anyway: each iteration's kernel is launched in two parts,
//!
//!     original kernel on [0, n - m)   (GPU)   |   helper threads remap [n - m, n)   (CPU)
//!     optimised kernel on [n - m, n)          |
//!
//! where m ≈ r·n is the optimisation ratio's share. While the GPU runs the first part, the helper
//! threads remap the second part from the data iteration i-1 left (copied back by the program's
//! `fetch`), the main thread copies the remap up and launches the optimised kernel on the second
//! part. If the remap or its copy is not complete when the first part ends, the second part runs
//! the original kernel instead (the paper's rule: the loop is never made to wait for a remap).
//! An abandoned remap still running when the next iteration starts makes that iteration run
//! unsplit; after `give_up_after` consecutive misses the loop stops splitting for good and
//! launches exactly what the original loop launches (automatic shut-down, as in zhang2011 §5.4).
//! r is fixed by the caller: the adaptive r of adaptive_control.hpp assumes the remap hides
//! behind a whole kernel, not behind the first part of a split one.
//!
//! Requirement on the program (as in the paper): within one iteration, threads are independent —
//! the first part does not write what the remap of the second part reads.
//!
//! `split_kernel` is the arithmetic (pure, tested on the host); `split_loop` is the driver over a
//! `pipeline_backend` and a `split_program`, tested on the simulated GPU and on the device.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "microsched/error.hpp"
#include "microsched/pipeline/chunk_program.hpp"
#include "microsched/pipeline/detail/poll_pause.hpp"
#include "microsched/pipeline/detail/transform_task.hpp"
#include "microsched/pipeline/statistics.hpp"
#include "microsched/pipeline/worker_pool.hpp"

namespace microsched::pipeline {

//! Threads [begin, end) of one kernel launch.
struct split_range {
  std::size_t begin = 0;
  std::size_t end = 0;
  [[nodiscard]] std::size_t size() const noexcept { return end - begin; }
  [[nodiscard]] bool empty() const noexcept { return end == begin; }
  friend bool operator==(const split_range&, const split_range&) = default;
};

//! One iteration's kernel split in two: `original` first, then `optimised`.
struct kernel_split {
  split_range original;   //!< [0, n - m): original kernel, runs while the remap is computed
  split_range optimised;  //!< [n - m, n): remapped part, optimised kernel if its remap is ready
};

//! Splits n threads with optimisation ratio r: m = n when r >= 1, otherwise
//! m = ⌊r·n / granularity⌋ · granularity, so the optimised part is whole warps (its remap can make
//! them pure) and the original part takes the rest; every thread is in exactly one part.
//! Throws std::invalid_argument for r outside [0, 1] (or NaN) and granularity < 1.
[[nodiscard]] inline kernel_split split_kernel(std::size_t n, double r,
                                               std::size_t granularity = 32) {
  if (!(r >= 0.0 && r <= 1.0)) throw_invalid("ratio", r, "must be in [0, 1]");
  if (granularity < 1) throw_invalid("granularity", granularity, "must be >= 1");
  std::size_t m = n;
  if (r < 1.0) {
    const auto units =
        static_cast<std::size_t>(r * static_cast<double>(n) / static_cast<double>(granularity));
    m = std::min(n, units * granularity);
  }
  return {{0, n - m}, {n - m, n}};
}

//! `pieces` + 1 boundaries cutting `range` into at most `pieces` parts whose inner boundaries are
//! `range.begin` + multiples of `granularity` (one part per helper thread). Parts may be empty
//! only when the range has fewer granules than pieces. Throws for pieces < 1 or granularity < 1.
[[nodiscard]] inline std::vector<std::size_t> split_pieces(split_range range, int pieces,
                                                           std::size_t granularity = 32) {
  if (pieces < 1) throw_invalid("pieces", pieces, "must be >= 1");
  if (granularity < 1) throw_invalid("granularity", granularity, "must be >= 1");
  std::vector<std::size_t> bounds = equal_piece_bounds(range.size(), pieces, granularity);
  for (std::size_t& b : bounds) b += range.begin;
  return bounds;
}

//! User-facing arguments of the split loop.
struct split_arguments {
  double ratio = 0.5;            //!< r: share of each iteration's threads that is remapped
  int threads = 2;               //!< helper threads remapping the optimised part
  std::size_t granularity = 32;  //!< the optimised part and the pieces are whole multiples
  std::chrono::microseconds poll_interval{0};  //!< sleep between two stream queries; 0: yield
  //! Automatic shut-down: after this many consecutive iterations whose remap missed (not ready,
  //! failed, or the previous remap still running), the loop stops splitting and launches what the
  //! original loop launches. 0: never.
  int give_up_after = 2;
};

//! Throws std::invalid_argument naming the first bad value.
inline void validate(const split_arguments& args) {
  if (!(args.ratio >= 0.0 && args.ratio <= 1.0))
    throw_invalid("ratio", args.ratio, "must be in [0, 1]");
  if (args.threads < 1 || args.threads > 256)
    throw_invalid("threads", args.threads, "must be in 1..256");
  if (args.granularity < 1) throw_invalid("granularity", args.granularity, "must be >= 1");
  if (args.give_up_after < 0) throw_invalid("give_up_after", args.give_up_after, "must be >= 0");
  if (args.poll_interval.count() < 0)
    throw_invalid("poll_interval_us", args.poll_interval.count(), "must be >= 0");
}

//! What a program's callbacks are given: the iteration and the threads concerned (for `transform`,
//! one helper's piece; otherwise the whole optimised part).
struct split_job {
  std::size_t iteration = 0;
  split_range range;
  //! Set when the iteration went on without this remap: a long transformation may return early.
  const std::atomic<bool>* cancel = nullptr;
  [[nodiscard]] bool cancelled() const noexcept {
    return cancel != nullptr && cancel->load(std::memory_order_relaxed);
  }
};

//! What a loop with a loop-carried dependence supplies. `transform` runs on helper threads for
//! disjoint pieces at once; everything else on the thread that called run().
template <class P, class B>
concept split_program = requires(P& p, const P& cp, const split_job& job, typename B::stream_type s,
                                 std::size_t iteration, split_range range) {
  { cp.iteration_count() } -> std::convertible_to<std::size_t>;
  { cp.elements() } -> std::convertible_to<std::size_t>;
  //! Enqueue the copy to the host of what transform() reads for job.range (the stream has
  //! waited for the previous iteration).
  p.fetch(job, s);
  { p.transform(job) } -> std::same_as<transform_outcome>;
  p.upload(job, s);                        //!< enqueue the remap's copy to the device
  p.launch_original(iteration, range, s);  //!< the original kernel on those threads
  p.launch_optimised(job, s);              //!< the remapped kernel on job.range
};

template <pipeline_backend Backend>
class split_loop {
 public:
  //! Throws std::invalid_argument for bad arguments.
  split_loop(Backend& backend, const split_arguments& args) : backend_(backend), args_(args) {
    validate(args_);
  }
  split_loop(const split_loop&) = delete;
  split_loop& operator=(const split_loop&) = delete;

  //! The original loop: one original launch on every thread per iteration.
  template <split_program<Backend> Program>
  static void run_original(Backend& backend, Program& program) {
    for (std::size_t i = 0; i < program.iteration_count(); ++i)
      program.launch_original(i, split_range{0, program.elements()}, backend.compute_stream());
    backend.synchronize();
  }

  //! Every iteration split at `ratio` (granularity `granularity`), its second part remapped on the
  //! calling thread before its launch, so the optimised kernel runs in every iteration: a
  //! reference for checks of a program's remapped kernel (one iteration at a time).
  template <split_program<Backend> Program>
  static void run_remapped(Backend& backend, Program& program, double ratio,
                           std::size_t granularity = 32) {
    const std::size_t n = program.elements();
    const kernel_split split = split_kernel(n, ratio, granularity);
    for (std::size_t i = 0; i < program.iteration_count(); ++i) {
      if (split.optimised.empty()) {
        program.launch_original(i, split_range{0, n}, backend.compute_stream());
        continue;
      }
      const split_job whole{i, split.optimised, nullptr};
      backend.synchronize();  // iteration i-1 wrote what the fetch reads
      if (!split.original.empty())
        program.launch_original(i, split.original, backend.compute_stream());
      program.fetch(whole, backend.copy_stream());
      backend.synchronize();
      (void)program.transform(whole);
      program.upload(whole, backend.copy_stream());
      backend.synchronize();
      program.launch_optimised(whole, backend.compute_stream());
    }
    backend.synchronize();
  }

  //! Runs every iteration split in two and returns what happened. A transformation that throws
  //! is recorded and that iteration's second part runs the original kernel; errors of the backend
  //! or of a launch propagate after the helper threads have stopped.
  template <split_program<Backend> Program>
  const pipeline_statistics& run(Program& program);

  [[nodiscard]] const pipeline_statistics& statistics() const noexcept { return stats_; }

 private:
  struct task : detail::transform_task {
    std::atomic<int> left{0};  // pieces not yet returned
    [[nodiscard]] bool finished() const { return left.load(std::memory_order_acquire) == 0; }
  };

  //! Resets the statistics; makes the events and (where `remap`) the helpers on first use.
  void begin_run(std::size_t iterations, bool remap);
  //! Records the automatic shut-down after `misses` consecutive missed remaps.
  void shut_down(int misses);
  //! Iteration i as the original loop runs it; `busy`: the previous remap still runs.
  template <class Program>
  void run_unsplit(Program& program, std::size_t i, std::size_t n, bool busy, long long run_start,
                   iteration_record& r);
  //! Iteration i split in two, its second part remapped on the helpers while the first part
  //! runs; `previous` becomes its task. True when the second part ran optimised.
  template <class Program>
  bool run_split(Program& program, std::size_t i, const kernel_split& split, long long run_start,
                 const detail::poller& poll, std::shared_ptr<task>& previous, iteration_record& r);
  //! While the first part runs: submit the pieces once the fetch is done, upload the remap once
  //! every piece returned; true when the upload has completed before the first part ended.
  template <class Program>
  bool remap_second_part(Program& program, const std::shared_ptr<task>& t, const split_job& whole,
                         const detail::poller& poll);

  Backend& backend_;
  split_arguments args_;
  pipeline_statistics stats_;
  std::unique_ptr<worker_pool> pool_;
  int fetched_ = -1, original_done_ = -1, copied_ = -1, iteration_done_ = -1;
};

}  // namespace microsched::pipeline

#include "microsched/pipeline/detail/kernel_split_run.inl"
