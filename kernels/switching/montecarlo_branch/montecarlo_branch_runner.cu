// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <cmath>

#include "montecarlo_branch/montecarlo_branch_program.cuh"
#include "runner_machinery.cuh"
#include "wavefront.cuh"

namespace microsched::switching_workloads {

using kernels::montecarlo_branch_program;

struct montecarlo_branch_runner::impl {
  montecarlo_branch_settings settings;
  cuda_stream stream;
  event_timer timer;
  device_buffer<std::uint32_t> sum, entered, ref_sum, ref_entered, counts;
  bool have_reference = false;
  //! The wavefront baseline's buffers, made on first use.
  std::unique_ptr<detail::wavefront<montecarlo_branch_program::context, 1>> wave;

  detail::wavefront<montecarlo_branch_program::context, 1>& wavefront() {
    if (!wave)
      wave = std::make_unique<detail::wavefront<montecarlo_branch_program::context, 1>>(
          settings.tasks);
    return *wave;
  }

  explicit impl(const montecarlo_branch_settings& s)
      : settings(s),
        sum(s.tasks),
        entered(s.tasks),
        ref_sum(s.tasks),
        ref_entered(s.tasks),
        counts(s.tasks) {}

  [[nodiscard]] montecarlo_branch_program program(std::uint32_t* sum_out,
                                                  std::uint32_t* entered_out) const {
    montecarlo_branch_program p;
    p.probability = settings.probability;
    p.outer = settings.outer;
    p.inner = settings.inner;
    p.seed = settings.seed;
    p.march_window = settings.march_window;
    p.sum_out = sum_out;
    p.entered_out = entered_out;
    return p;
  }
  [[nodiscard]] montecarlo_branch_program program() const {
    return program(sum.data(), entered.data());
  }

  void ensure_reference() {
    if (have_reference) return;
    ref_sum.fill_bytes(0xff, stream.get());
    ref_entered.fill_bytes(0xff, stream.get());
    detail::run_vanilla(program(ref_sum.data(), ref_entered.data()), settings.tasks, stream.get());
    stream.synchronize();
    have_reference = true;
  }

  //! Poisons the outputs, zeroes the counters, calls run(counted program, stream) and compares
  //! with vanilla.
  template <class Run>
  workloads::verification_report verify_with(Run&& run);
};

montecarlo_branch_runner::montecarlo_branch_runner(const montecarlo_branch_settings& settings) {
  if (settings.tasks == 0) throw_invalid("tasks", settings.tasks, "must be at least 1");
  if (!(settings.probability >= 0.0f && settings.probability <= 1.0f)) {
    throw_invalid("probability", settings.probability, "must be in [0, 1]");
  }
  if (settings.outer == 0) throw_invalid("outer", settings.outer, "must be at least 1");
  if (settings.march_window < 1 || settings.march_window > 4096) {
    throw_invalid("march window", settings.march_window, "must be in 1..4096");
  }
  impl_ = std::make_unique<impl>(settings);
}
montecarlo_branch_runner::~montecarlo_branch_runner() = default;

const montecarlo_branch_settings& montecarlo_branch_runner::settings() const {
  return impl_->settings;
}

void montecarlo_branch_runner::set_probability(float p) {
  if (!(p >= 0.0f && p <= 1.0f)) throw_invalid("probability", p, "must be in [0, 1]");
  impl_->settings.probability = p;
  impl_->have_reference = false;
}

void montecarlo_branch_runner::set_march_window(std::uint32_t window) {
  if (window < 1 || window > 4096) throw_invalid("march window", window, "must be in 1..4096");
  impl_->settings.march_window = window;
}

std::string montecarlo_branch_runner::describe() const {
  const auto& s = impl_->settings;
  return "montecarlo_branch tasks=" + std::to_string(s.tasks) +
         " p=" + std::to_string(s.probability) + " outer=" + std::to_string(s.outer) +
         " inner=" + std::to_string(s.inner) + " window=" + std::to_string(s.march_window);
}

timing_stats montecarlo_branch_runner::time_vanilla(const timing_options& options) {
  const auto program = impl_->program();
  const task_id n = impl_->settings.tasks;
  return impl_->timer.time([&](cudaStream_t s) { detail::run_vanilla(program, n, s); }, options,
                           impl_->stream.get());
}

timing_stats montecarlo_branch_runner::time_termination(const schedule_arguments& args,
                                                        const timing_options& options) {
  return detail::time_termination(impl_->timer, impl_->program(), impl_->settings.tasks, args,
                                  options, impl_->stream.get());
}

timing_stats montecarlo_branch_runner::time_switching(const variant& v,
                                                      const timing_options& options) {
  return detail::time_switching(impl_->timer, impl_->program(), impl_->settings.tasks, v, options,
                                impl_->stream.get());
}

namespace {
//! Exactly once and bit-equal sums and entry counts, from the host copies of a counted run.
workloads::verification_report compare(const std::vector<std::uint32_t>& counts,
                                       const std::vector<std::uint32_t>& sum,
                                       const std::vector<std::uint32_t>& entered,
                                       const std::vector<std::uint32_t>& ref_sum,
                                       const std::vector<std::uint32_t>& ref_entered) {
  workloads::verification_report r;
  r.tasks = counts.size();
  for (std::size_t t = 0; t < counts.size(); ++t) {
    if (counts[t] == 0) ++r.missing;
    if (counts[t] > 1) ++r.duplicated;
    if (counts[t] != 1 && r.detail.size() < 200) {
      r.detail += "task " + std::to_string(t) + " ended " + std::to_string(counts[t]) + " times; ";
    }
    if (sum[t] != ref_sum[t] || entered[t] != ref_entered[t]) {
      ++r.mismatched;
      if (r.detail.size() < 400) {
        r.detail += "task " + std::to_string(t) + ": entries " + std::to_string(entered[t]) +
                    " vs vanilla " + std::to_string(ref_entered[t]) + "; ";
      }
    }
  }
  r.passed = r.missing == 0 && r.duplicated == 0 && r.mismatched == 0;
  return r;
}
}  // namespace

template <class Run>
workloads::verification_report montecarlo_branch_runner::impl::verify_with(Run&& run) {
  ensure_reference();
  const cudaStream_t s = stream.get();
  sum.fill_bytes(0xff, s);
  entered.fill_bytes(0xff, s);
  counts.fill_bytes(0, s);
  run(counted_program<montecarlo_branch_program>{program(), counts.data()}, s);
  stream.synchronize();
  return compare(counts.to_host(s), sum.to_host(s), entered.to_host(s), ref_sum.to_host(s),
                 ref_entered.to_host(s));
}

workloads::verification_report montecarlo_branch_runner::check(const variant& v) {
  const task_id n = impl_->settings.tasks;
  return impl_->verify_with(
      [&](const auto& counted, cudaStream_t s) { detail::run_switching(counted, n, v, s); });
}

// The default's pool: 128 contexts per warp, the fastest of the pool sizes on this workload.
constexpr int mc_default_contexts = 128;

default_times montecarlo_branch_runner::time_default(const timing_options& options) {
  return detail::time_default<mc_default_contexts>(
      impl_->timer, impl_->program(), impl_->settings.tasks, options, impl_->stream.get());
}

std::vector<form_check> montecarlo_branch_runner::verify_forms() {
  const task_id n = impl_->settings.tasks;
  std::vector<form_check> out;
  for (const auto& f : detail::default_forms(impl_->program())) {
    auto r = impl_->verify_with([&](const auto& counted, cudaStream_t s) {
      detail::run_form_counted<mc_default_contexts>(counted.inner, counted.counts, n, f, s);
    });
    out.push_back({switching::form_name<montecarlo_branch_program>(f), r});
  }
  return out;
}

timing_stats montecarlo_branch_runner::time_wavefront(const timing_options& options) {
  auto& wave = impl_->wavefront();
  const auto program = impl_->program();
  return impl_->timer.time([&](cudaStream_t s) { wave.run(program, s); }, options,
                           impl_->stream.get());
}

workloads::verification_report montecarlo_branch_runner::verify_wavefront() {
  auto& wave = impl_->wavefront();
  return impl_->verify_with([&](const auto& counted, cudaStream_t s) { wave.run(counted, s); });
}

int montecarlo_branch_runner::wavefront_rounds() const {
  return impl_->wave ? impl_->wave->rounds() : 0;
}

std::string montecarlo_branch_runner::resources(const variant& v) {
  return detail::resources(impl_->program(), impl_->settings.tasks, v);
}

double montecarlo_branch_runner::mean_entries() {
  impl_->ensure_reference();
  const auto entered = impl_->ref_entered.to_host(impl_->stream.get());
  double total = 0;
  for (auto e : entered) total += e;
  return total / static_cast<double>(entered.size());
}

}  // namespace microsched::switching_workloads
