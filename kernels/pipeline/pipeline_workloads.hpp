// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file pipeline_workloads.hpp
//! Chunk programs for the pipeline (chunk_program over cuda_backend), each with an original and
//! an optimised kernel built from the same per-element device function:
//! - gafort: a divergent loop, each child gene runs a crossover loop of data-dependent length
//!   (zhang2010 §5.3); LAM on the trip counts, reference redirection (newtid = D[tid]).
//! - unwrap: polar resampling of images, out[t] = f(img[P[t]]) (zhang2011's unwrap); data
//!   reordering by duplication on the host, img'[t] = img[P[t]], so the kernel reads img'[t].
//! - blackscholes: option pricing with nothing to gain (zhang2010 §5.6); regrouping by moneyness
//!   and redirection, which the adaptive control should switch off.
//! - carried: a gafort-like divergent loop over ONE population, iterated: each iteration's trip
//!   counts come from the previous iteration's output (a loop-carried dependence), so nothing can
//!   be remapped ahead; kernel splitting (kernel_split.hpp) remaps the last r of each iteration.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "microsched/measure/timing_stats.hpp"
#include "microsched/pipeline/chunk_pipeline.hpp"
#include "microsched/pipeline/cuda_backend.hpp"
#include "microsched/pipeline/kernel_split.hpp"

namespace microsched::pipeline::workloads {

using stream_t = cudaStream_t;

struct gafort_options {
  std::size_t chunks = 32;
  std::size_t elements = std::size_t{1} << 20;  //!< children per chunk
  std::uint32_t max_trips = 32768;              //!< longest crossover segment
  double crossover = 0.6;                       //!< share of children with a crossover
  int classes = 10;                             //!< LAM's R
  bool fill_quotas = true;                      //!< LAM labels every warp its quotas allow
  unsigned seed = 1;
};

struct unwrap_options {
  std::size_t chunks = 32;  //!< frames processed
  int frames = 4;           //!< distinct frames cycled through
  int width = 4096;
  int height = 4096;
  int radii = 512;
  int angles = 2048;
  unsigned seed = 2;
  //! Pieces of equal cost (samples and frame lines) instead of equal size (piece_bounds).
  bool weighted_pieces = true;
  //! Host memory for the helpers' gather plans, in plans of a whole chunk (5 B per sample each):
  //! a piece gathers along its own plan, one forward sweep of the frame, once the plan is built;
  //! past the budget it follows the block plan (slower). 0: no plans.
  int plan_cache = 4;
};

struct blackscholes_options {
  std::size_t chunks = 200;                     //!< iterations
  std::size_t elements = std::size_t{1} << 22;  //!< options per chunk
  int regions = 8;                              //!< distinct chunks of options cycled through
  unsigned seed = 3;
};

//! Common interface of the three programs (each satisfies chunk_program<P, cuda_backend>).
class program_base {
 public:
  virtual ~program_base() = default;
  [[nodiscard]] virtual std::size_t chunk_count() const = 0;
  [[nodiscard]] virtual std::size_t chunk_elements(std::size_t chunk) const = 0;
  [[nodiscard]] virtual std::vector<remap_method> methods() const = 0;
  virtual void prepare(int method, int slots) = 0;
  virtual transform_outcome transform(const transform_job& job) = 0;
  virtual void upload(const transform_job& job, stream_t s) = 0;
  virtual void launch_original(std::size_t chunk, stream_t s) = 0;
  virtual void launch_optimised(const transform_job& job, stream_t s) = 0;
  //! Pieces of equal cost (chunk_pipeline.hpp, weighted_pieces); empty: equal size.
  [[nodiscard]] virtual std::vector<std::size_t> piece_bounds(std::size_t, std::size_t, int,
                                                              std::size_t) {
    return {};
  }
  //! Fills the outputs with a poison value (NaN bits).
  virtual void poison_outputs() = 0;
  //! The outputs of every chunk, as float bits, copied to the host.
  [[nodiscard]] virtual std::vector<std::uint32_t> outputs() = 0;
  [[nodiscard]] virtual std::string describe() const = 0;
};

//! A proxy satisfying the concept by forwarding to a program_base.
struct any_program {
  program_base& p;
  [[nodiscard]] std::size_t chunk_count() const { return p.chunk_count(); }
  [[nodiscard]] std::size_t chunk_elements(std::size_t c) const { return p.chunk_elements(c); }
  [[nodiscard]] std::vector<remap_method> methods() const { return p.methods(); }
  void prepare(int m, int s) { p.prepare(m, s); }
  transform_outcome transform(const transform_job& j) { return p.transform(j); }
  void upload(const transform_job& j, stream_t s) { p.upload(j, s); }
  void launch_original(std::size_t c, stream_t s) { p.launch_original(c, s); }
  void launch_optimised(const transform_job& j, stream_t s) { p.launch_optimised(j, s); }
  [[nodiscard]] std::vector<std::size_t> piece_bounds(std::size_t c, std::size_t m, int pieces,
                                                      std::size_t g) {
    return p.piece_bounds(c, m, pieces, g);
  }
};
static_assert(chunk_program<any_program, cuda_backend>);
static_assert(weighted_pieces<any_program>);

[[nodiscard]] std::unique_ptr<program_base> make_gafort(const gafort_options& options);
[[nodiscard]] std::unique_ptr<program_base> make_unwrap(const unwrap_options& options);
[[nodiscard]] std::unique_ptr<program_base> make_blackscholes(const blackscholes_options& options);

struct carried_options {
  std::size_t iterations = 16;
  std::size_t elements = std::size_t{1} << 20;  //!< population, iterated over
  std::uint32_t max_trips = 4096;               //!< longest crossover segment
  double crossover = 0.6;                       //!< share of genes with a crossover, per iteration
  int classes = 10;                             //!< LAM's R
  unsigned seed = 4;
};

//! A loop with a loop-carried dependence (satisfies split_program through any_split_program).
class split_program_base {
 public:
  virtual ~split_program_base() = default;
  [[nodiscard]] virtual std::size_t iteration_count() const = 0;
  [[nodiscard]] virtual std::size_t elements() const = 0;
  virtual void fetch(const split_job& job, stream_t s) = 0;
  virtual transform_outcome transform(const split_job& job) = 0;
  virtual void upload(const split_job& job, stream_t s) = 0;
  virtual void launch_original(std::size_t iteration, split_range range, stream_t s) = 0;
  virtual void launch_optimised(const split_job& job, stream_t s) = 0;
  //! Restores the initial population and poisons the outputs (NaN bits).
  virtual void reset() = 0;
  //! Every iteration's outputs and the final population, as 32-bit words, copied to the host.
  [[nodiscard]] virtual std::vector<std::uint32_t> outputs() = 0;
  [[nodiscard]] virtual std::string describe() const = 0;
};

struct any_split_program {
  split_program_base& p;
  [[nodiscard]] std::size_t iteration_count() const { return p.iteration_count(); }
  [[nodiscard]] std::size_t elements() const { return p.elements(); }
  void fetch(const split_job& j, stream_t s) { p.fetch(j, s); }
  transform_outcome transform(const split_job& j) { return p.transform(j); }
  void upload(const split_job& j, stream_t s) { p.upload(j, s); }
  void launch_original(std::size_t i, split_range r, stream_t s) { p.launch_original(i, r, s); }
  void launch_optimised(const split_job& j, stream_t s) { p.launch_optimised(j, s); }
};
static_assert(split_program<any_split_program, cuda_backend>);

[[nodiscard]] std::unique_ptr<split_program_base> make_carried(const carried_options& options);

//! Kernel-only timings of unwrap on one frame: original gather vs reordered read.
struct kernel_pair {
  timing_stats original;
  timing_stats optimised;
};
[[nodiscard]] kernel_pair time_unwrap_kernels(const unwrap_options& options,
                                              const timing_options& t);
//! Host only: wall time (ms) of each frame's reorder on `threads` helpers, one piece each (the
//! pieces the pipeline cuts with granularity 4096), frames cycled as in the loop, after warm-up.
[[nodiscard]] std::vector<double> time_unwrap_gather(const unwrap_options& options, int threads,
                                                     int frames);

}  // namespace microsched::pipeline::workloads
