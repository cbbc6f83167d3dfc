// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file adaptive_control.hpp
//! The adaptive control of zhang2011 §5.4 as a pure class: it is told what each iteration cost
//! and decides the optimisation ratio r (the share of a chunk that is transformed), the number of
//! data segments s, and whether the transformation runs at all.
//!
//! - Online profiling: r = r0. The first transformation's time Ttr and the original kernels' time
//!   Torg are recorded; if the transformation did not finish in time (Ttr > Torg) it switches off.
//!   Its optimised kernel's time Topt gives the saving Tsav = Torg - Topt; no saving switches off
//!   too (a workload with nothing to gain, like Black-Scholes).
//! - Torg (ours) is the mean of the original kernel times less the control's first one, which
//!   carries the run's cold start (the first launch, the first copy of a frame); the first is
//!   Torg only until a second is known. The verdict and the guard take this mean, not the latest.
//! - Estimate: r' = r0 * Torg / (Ttr + Tsav), clamped to [min_ratio, 1]. With a pipeline depth
//!   Δ > 1 a transformation has Δ kernel times to finish (the paper fixes Δ = 1), so the same
//!   derivation (Ttr' = Δ * (Torg - Tsav')) gives r' = r0 * Δ * Torg / (Ttr + Δ * Tsav).
//! - Dynamic adjustment (Figure 8): a failure lowers r by a step; two consecutive successes raise
//!   it, but only while it has never been lowered; once lowered, two consecutive successes settle
//!   it for good. A failure at the smallest r first raises s to 5 (overlap copy and transform),
//!   then switches off.
//! - Loss guard (ours): the paper's rule guarantees a chunk never waits for its remap, but the
//!   helpers' memory traffic, extra copies and host waits can still make the loop slower, and a
//!   kernel-time comparison does not see them. The pipeline reports each iteration's whole step
//!   on the GPU's clock (events: end of chunk i-1 to end of chunk i, so its copies and any idle
//!   gap before it are included); the guard keeps the running loss, the sum of (step - Torg)
//!   since the control started, in which iterations that gained are credits (every step against
//!   the latest mean Torg, so an early estimate from few originals leaves no error behind). The
//!   allowance is `loss_tolerance * Torg * max(iterations judged, loss_window)`. It switches off
//!   once the loss has stayed above the allowance for `loss_patience` judged iterations in a row (a
//!   steady loss above the tolerance), or at once when it is more than `loss_patience` original
//!   iterations past the allowance (a long stall). So one late iteration that the next ones make up
//!   does not end a pipeline that pays (docs/decisions.md, "The pipeline's loss guard"). One
//!   sample is set aside (docs/decisions.md, "The pipeline's noisy profile"): the first step whose
//!   excess alone is more than the allowance (a helper or the launching thread that lost its core
//!   for a scheduler slice) counts as Torg, so a single stall cannot switch a paying pipeline off;
//!   a second one counts in full. The loop is never behind the original by much more than the
//!   tolerance plus that one step plus `loss_patience` iterations' excess. Torg is the original
//!   chunk's copies and kernel, which is the original loop's step when its GPU queue never
//!   drains.
//! - Forecast (ours): with adaptive_arguments::predicted_speedup from the divergence model, a
//!   remap predicted to save no more than min_gain is switched off at the first original kernel,
//!   before profiling pays for a remap.
//! - All-or-nothing methods (remap_scope::whole_chunk, e.g. a reordered copy that replaces the
//!   whole input only when complete): a remap of part of a chunk saves nothing, so r is the share
//!   of chunks transformed whole, each by every helper (the others run the original kernel while
//!   the helpers work on the next selected chunk). Profiling at r = 1 (one chunk), then r' = Torg /
//!   (Ttr + Tsav) (Δ = 1: Ttr is measured with all helpers on one chunk) and the same adjustment. A
//!   profiled chunk that misses its launch gets `profile_attempts` tries in all before the
//!   control switches off (ours): one remap is a sample of one, and a helper that loses its core
//!   for a time slice takes several times as long (docs/decisions.md, "The pipeline's profile
//!   attempts"). A workload that cannot keep up pays one more chunk of helper work.

#include <string>

namespace microsched::pipeline {

//! Arguments of the controller (user-facing).
struct adaptive_arguments {
  double initial_ratio = 0.1;    //!< r0 for online profiling
  double ratio_step = 0.1;       //!< rs
  double min_ratio = 0.05;       //!< below this the transformation is not worth running
  double min_gain = 0.005;       //!< profiling must save more than min_gain * Torg, else off
  int initial_segments = 1;      //!< s to start with
  int raised_segments = 5;       //!< s after the transformation failed at the smallest r
  int loss_window = 8;           //!< loss guard grace: loss allowed at the start, in iterations
                                 //!< of tolerance; 0: no guard
  double loss_tolerance = 0.02;  //!< switch off once the loop is this much slower than Torg
  //! judged iterations in a row the loss may stay above the allowance (>= 1; 1: off at once)
  int loss_patience = 3;
  //! all-or-nothing methods: profiled chunks that may miss their launch before the control
  //! switches off (>= 1; 1: the paper's single profile). Partial methods profile once.
  int profile_attempts = 2;
  //! all-or-nothing methods: once per run, a control that switched off starts profiling again
  //! this many chunks later (the chunk pipeline re-arms it; 0: never). A transient (a remap that
  //! lost its core, a stalled GPU step) then costs a few chunks, not the rest of the run; a
  //! workload that cannot gain pays one more profile per run.
  int rearm_after = 8;
  //! What the divergence model predicts the remapped kernel gains over the original
  //! (model::forecast_regroupings(...).chosen().predicted_speedup; 0: no forecast). With a
  //! forecast, the first original kernel time decides before any remap is paid: a predicted
  //! saving, Torg * (1 - 1 / predicted_speedup), of no more than min_gain * Torg switches the
  //! control off (model::remap_can_pay's rule with the remap off the critical path, as the
  //! pipeline runs it ahead). Without one, online profiling finds the same at the cost of a
  //! profiled chunk.
  double predicted_speedup = 0;
};

//! Throws std::invalid_argument naming the first bad value.
void validate(const adaptive_arguments& args);

//! What r is a share of: each chunk's elements (a partial remap pays in proportion) or the chunks,
//! each remapped whole (an all-or-nothing remap pays only when complete). The pipeline takes it
//! from the remap method it chose (remap_method::partial); it is not a user setting.
enum class remap_scope { partial, whole_chunk };

class adaptive_controller {
 public:
  enum class phase { profiling, adjusting, settled, off };

  //! `depth`: the pipeline depth Δ, the kernel times a transformation may take (>= 1).
  explicit adaptive_controller(const adaptive_arguments& args = {}, int depth = 1,
                               remap_scope scope = remap_scope::partial);

  //! False once the controller switched the transformation off (automatic shut-down).
  [[nodiscard]] bool enabled() const noexcept { return phase_ != phase::off; }
  //! r for the next transformation submitted.
  [[nodiscard]] double ratio() const noexcept { return ratio_; }
  //! s for the next transformation submitted.
  [[nodiscard]] int segments() const noexcept { return segments_; }
  [[nodiscard]] phase state() const noexcept { return phase_; }
  [[nodiscard]] remap_scope scope() const noexcept { return scope_; }
  //! Why it switched off ("" while enabled).
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

  //! A kernel that ran on original data only took `kernel_ms` (a sample of Torg).
  void original_kernel(double kernel_ms);

  //! The transformation of one chunk ended. `success`: it was ready when its chunk launched, so
  //! the optimised kernel ran and took `optimised_kernel_ms` (ignored on failure). `ratio`: the r
  //! that transformation used. `transform_ms`: its time (how long it ran, when abandoned).
  void transformation(double ratio, bool success, double transform_ms, double optimised_kernel_ms);

  //! One pipelined iteration's whole step took `step_ms` (end of the previous chunk to the end of
  //! this one, on the GPU's clock): the loss guard. Ignored before the first original kernel time.
  void iteration_time(double step_ms);

  //! Running loss of the guard: the steps judged less as many latest mean Torg (ms; < 0: ahead).
  [[nodiscard]] double loss_ms() const noexcept {
    return loss_count_ > 0 ? step_sum_ - static_cast<double>(loss_count_) * original_mean_ms()
                           : 0.0;
  }

  //! Torg: the mean of the original kernel times seen less the first (cold) one, or the first
  //! while it is the only one (<= 0: none yet).
  [[nodiscard]] double original_mean_ms() const noexcept {
    if (org_count_ > 1) return org_sum_ / (org_count_ - 1);
    return org_count_ == 1 ? first_org_ : -1;
  }

  //! The loss guard's one step set aside: its excess over Torg (ms; 0: none yet).
  [[nodiscard]] double set_aside_ms() const noexcept { return set_aside_ms_; }

  //! Profiled chunks that missed so far (while profiling: a next one is awaited).
  [[nodiscard]] int profile_misses() const noexcept { return profile_misses_; }

  //! Switches off now (e.g. the user function keeps throwing), with the reason.
  void shut_down(std::string reason);

 private:
  void fail_at_min();
  adaptive_arguments args_;
  remap_scope scope_ = remap_scope::partial;
  phase phase_ = phase::profiling;
  double ratio_ = 0;
  int segments_ = 1;
  int depth_ = 1;
  double first_org_ = -1;  // the first original kernel time (cold start)
  double org_sum_ = 0;     // the original kernel times after the first
  int org_count_ = 0;
  double step_sum_ =
      0;  // loss guard: sum of the steps judged (loss_ms() uses the latest mean Torg)
  int loss_count_ = 0;
  int loss_over_ = 0;       // judged iterations in a row with the loss above the allowance
  bool set_aside_ = false;  // the loss guard set one late step aside
  double set_aside_ms_ = 0;
  int profile_misses_ = 0;  // profiled chunks that missed their launch
  bool decreased_ = false;
  int successes_ = 0;
  std::string reason_;
};

[[nodiscard]] const char* to_string(adaptive_controller::phase p) noexcept;

}  // namespace microsched::pipeline
