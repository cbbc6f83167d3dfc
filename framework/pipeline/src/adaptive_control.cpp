// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/pipeline/adaptive_control.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "microsched/error.hpp"

namespace microsched::pipeline {

void validate(const adaptive_arguments& args) {
  if (!(args.min_ratio > 0 && args.min_ratio <= 1))
    throw_invalid("min_ratio", args.min_ratio, "must be in (0, 1]");
  if (!(args.initial_ratio >= args.min_ratio && args.initial_ratio <= 1))
    throw_invalid("initial_ratio", args.initial_ratio, "must be in [min_ratio, 1]");
  if (!(args.ratio_step > 0 && args.ratio_step <= 1))
    throw_invalid("ratio_step", args.ratio_step, "must be in (0, 1]");
  if (!(args.min_gain >= 0)) throw_invalid("min_gain", args.min_gain, "must be >= 0");
  if (args.initial_segments < 1)
    throw_invalid("initial_segments", args.initial_segments, "must be >= 1");
  if (args.raised_segments < 1)
    throw_invalid("raised_segments", args.raised_segments, "must be >= 1");
  if (args.loss_window < 0) throw_invalid("loss_window", args.loss_window, "must be >= 0");
  if (!(args.loss_tolerance >= 0))
    throw_invalid("loss_tolerance", args.loss_tolerance, "must be >= 0");
  if (args.loss_patience < 1) throw_invalid("loss_patience", args.loss_patience, "must be >= 1");
  if (args.profile_attempts < 1)
    throw_invalid("profile_attempts", args.profile_attempts, "must be >= 1");
  if (args.rearm_after < 0) throw_invalid("rearm_after", args.rearm_after, "must be >= 0");
  if (!(args.predicted_speedup >= 0) || !std::isfinite(args.predicted_speedup))
    throw_invalid("predicted_speedup", args.predicted_speedup, "must be >= 0 (0: no forecast)");
}

adaptive_controller::adaptive_controller(const adaptive_arguments& args, int depth,
                                         remap_scope scope)
    : args_(args), scope_(scope), depth_(depth) {
  validate(args_);
  if (depth < 1) throw_invalid("depth", depth, "must be >= 1");
  segments_ = args_.initial_segments;
  // All-or-nothing methods profile at r = 1 (one whole chunk).
  ratio_ = scope_ == remap_scope::whole_chunk ? 1.0 : args_.initial_ratio;
}

void adaptive_controller::original_kernel(double kernel_ms) {
  if (kernel_ms <= 0) return;
  ++org_count_;
  // The first original carries the run's cold start: it is Torg only until a warm one is known.
  if (org_count_ == 1)
    first_org_ = kernel_ms;
  else
    org_sum_ += kernel_ms;
  if (org_count_ == 1 && args_.predicted_speedup > 0 && phase_ == phase::profiling) {
    const double saving = kernel_ms * (1.0 - 1.0 / args_.predicted_speedup);
    if (!(saving > args_.min_gain * kernel_ms))
      shut_down("the model predicts " + std::to_string(args_.predicted_speedup) +
                "x: a remap cannot save more than min_gain");
  }
}

void adaptive_controller::iteration_time(double step_ms) {
  if (args_.loss_window == 0 || phase_ == phase::off || org_count_ == 0) return;
  // Every step judged so far against the current Torg: the mean sharpens as originals run, and
  // a first estimate from one or two warm-up kernels must not leave its error in the sum.
  const double org = original_mean_ms();
  ++loss_count_;
  const double allowed =
      args_.loss_tolerance * org * static_cast<double>(std::max(loss_count_, args_.loss_window));
  // One step late by more than the whole allowance is one noisy sample (a thread that lost its
  // core): the first is set aside, so only a second one or a steady loss can switch off.
  if (!set_aside_ && step_ms - org > allowed) {
    set_aside_ = true;
    set_aside_ms_ = step_ms - org;
    step_sum_ += org;
  } else {
    step_sum_ += step_ms;
  }
  const double loss = loss_ms();
  loss_over_ = loss > allowed ? loss_over_ + 1 : 0;
  const bool stall = loss > allowed + args_.loss_patience * org;
  if (loss_over_ >= args_.loss_patience || stall) {
    std::ostringstream why;
    why << "loss guard: after " << loss_count_ << " pipelined iterations the loop is " << loss
        << " ms behind the original (kernel with its copies " << org
        << " ms per iteration, allowed " << allowed << " ms";
    if (stall)
      why << " plus " << args_.loss_patience << " iterations";
    else
      why << ", exceeded for " << loss_over_ << " iterations in a row";
    if (set_aside_) why << "; one step " << set_aside_ms_ << " ms late set aside";
    why << ")";
    shut_down(why.str());
  }
}

void adaptive_controller::shut_down(std::string reason) {
  phase_ = phase::off;
  reason_ = std::move(reason);
}

void adaptive_controller::fail_at_min() {
  if (segments_ < args_.raised_segments) {
    segments_ = args_.raised_segments;  // overlap copy and transformation, then try again
    ratio_ = args_.min_ratio;
    successes_ = 0;
    return;
  }
  shut_down("transformation slower than the kernel even at the smallest ratio");
}

void adaptive_controller::transformation(double ratio, bool success, double transform_ms,
                                         double optimised_kernel_ms) {
  if (phase_ == phase::off || phase_ == phase::settled) return;
  if (phase_ == phase::profiling) {
    if (!success) {
      ++profile_misses_;
      if (scope_ == remap_scope::whole_chunk && profile_misses_ < args_.profile_attempts)
        return;  // profile another
      std::ostringstream why;
      // transform_ms counts from when a helper began the remap, so it can be shorter than the
      // window and still late: the remap waited for a helper, or began after the window opened.
      why << "profiling: the profiled chunk's remap did not finish before its kernel had to launch "
          << "(transformation " << transform_ms << " ms at r=" << ratio << " from when a helper "
          << "began it; the window was " << depth_ << " kernel time(s) of " << original_mean_ms()
          << " ms";
      if (profile_misses_ > 1) why << "; " << profile_misses_ << " profiled chunks missed";
      why << ")";
      shut_down(why.str());
      return;
    }
    if (org_count_ == 0) return;  // no original timing yet: profile the next one
    // The mean of the warm originals, not the latest one: a verdict from a single noisy kernel
    // time would be a coin toss.
    const double t_org = original_mean_ms();
    const double t_sav = t_org - optimised_kernel_ms;
    if (t_sav <= args_.min_gain * t_org) {
      std::ostringstream why;
      why << "profiling: no gain (original " << t_org << " ms, optimised at r=" << ratio << " "
          << optimised_kernel_ms << " ms)";
      shut_down(why.str());
      return;
    }
    // All-or-nothing methods: r is the share of chunks transformed, each one whole, on every
    // helper. The helpers need r * Ttr per chunk and the GPU's mean step is Torg - r * Tsav, so
    // r' = r0 * Torg / (Ttr + Tsav): the paper's estimate with Δ = 1, since Ttr was measured with
    // all helpers on one chunk (the depth adds latency, not throughput).
    const double d = scope_ == remap_scope::partial ? depth_ : 1;
    const double estimate = ratio * d * t_org / (std::max(0.0, transform_ms) + d * t_sav);
    ratio_ = std::clamp(estimate, args_.min_ratio, 1.0);
    phase_ = phase::adjusting;
    successes_ = 0;
    return;
  }
  // Dynamic adjustment (zhang2011 Figure 8).
  if (!success) {
    successes_ = 0;
    decreased_ = true;
    if (ratio_ <= args_.min_ratio + 1e-12) {
      fail_at_min();
      return;
    }
    ratio_ = std::max(args_.min_ratio, ratio_ - args_.ratio_step);
    return;
  }
  if (++successes_ < 2) return;
  successes_ = 0;
  if (decreased_ || ratio_ >= 1.0) {
    phase_ = phase::settled;
    return;
  }
  ratio_ = std::min(1.0, ratio_ + args_.ratio_step);
}

const char* to_string(adaptive_controller::phase p) noexcept {
  switch (p) {
    case adaptive_controller::phase::profiling:
      return "profiling";
    case adaptive_controller::phase::adjusting:
      return "adjusting";
    case adaptive_controller::phase::settled:
      return "settled";
    case adaptive_controller::phase::off:
      return "off";
  }
  return "?";
}

}  // namespace microsched::pipeline
