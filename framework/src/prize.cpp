// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "microsched/check/prize_report.hpp"
#include "microsched/check/step_statistics.hpp"
#include "microsched/error.hpp"

namespace microsched {

std::string prize_report::summary() const {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer,
                "%llu tasks, steps mean %.1f max %llu, warp max mean %.1f; direct %.3f ms, "
                "scheduled %.3f ms (%.2fx direct, %.0f%% of the floor's speed), floor %.3f ms "
                "(prize %.2fx), longest task alone %.3f ms",
                static_cast<unsigned long long>(tasks), steps_mean,
                static_cast<unsigned long long>(steps_max), warp_max_mean, direct.median_ms,
                scheduled.median_ms, speedup(), 100.0 * of_floor(), floor.median_ms, prize(),
                longest_alone.median_ms);
  std::string out = buffer;
  // Where one task alone outlasts the floor, the floor's share understates the schedule: say
  // how close it comes to what is reachable.
  if (longest_alone.median_ms > floor.median_ms && scheduled.median_ms > 0) {
    std::snprintf(buffer, sizeof buffer,
                  " (above the floor: no schedule beats it; scheduled at %.0f%% of its speed)",
                  100.0 * bound_ms() / scheduled.median_ms);
    out += buffer;
  }
  out += "; exactly once: ";
  out += exactly_once() ? "yes" : "NO";
  out += "; outputs equal: ";
  if (outputs_equal()) {
    out += "yes";
  } else {
    // Every task ran once, yet the bytes differ: floating-point step code that the compiler
    // contracts into FMAs differently in two kernels, or state the program updates in place
    // that the runs did not start from alike (docs/porting-guide.md).
    out += "NO (" + std::to_string(differing_bytes) + " bytes differ" +
           (exactly_once() ? "; where the program updates a buffer in place (random state, "
                             "totals), mark it output_region{..., true}; where it adds floats "
                             "with atomics, compare it as floats with a tolerance; else write "
                             "the step's FMAs explicitly or build with -fmad=false)"
                           : ")");
  }
  // The scheduler's report can be long (every candidate's time): appended whole.
  return out + "; " + schedule;
}

void validate(const output_region& region) {
  if (region.data == nullptr || region.bytes == 0) {
    throw_invalid("output region bytes", region.bytes, "needs a device pointer and a size");
  }
  if (!(region.tolerance >= 0) || !std::isfinite(region.tolerance)) {
    throw_invalid("output region tolerance", region.tolerance, "must be finite and 0 or more");
  }
  if (region.tolerance > 0 && region.values == output_region::compare_as::bytes) {
    throw_invalid("output region tolerance", region.tolerance,
                  "applies to values: set values to compare_as::floats or compare_as::doubles");
  }
  const std::size_t value = region.values == output_region::compare_as::floats    ? sizeof(float)
                            : region.values == output_region::compare_as::doubles ? sizeof(double)
                                                                                  : 1;
  if (region.bytes % value != 0) {
    const std::string each = std::to_string(value) + " bytes each)";
    throw_invalid(
        "output region bytes", region.bytes,
        std::string("a region compared as values must hold a whole number of them (") + each);
  }
}

namespace detail {

void summarize_steps(const std::vector<std::uint32_t>& steps, prize_report& r) {
  const step_statistics s = summarize(steps);
  r.steps_mean = s.mean;
  r.steps_max = s.max;
  r.warp_max_mean = s.warp_max_mean;
  r.longest_task = s.longest_task;
  r.floor_steps = static_cast<std::uint64_t>(std::llround(r.steps_mean));
}

void poison(const std::vector<output_region>& outputs, cudaStream_t stream) {
  for (const output_region& o : outputs) {
    if (!o.restore) MICROSCHED_CUDA_TRY(cudaMemsetAsync(o.data, 0xff, o.bytes, stream));
  }
}

std::vector<std::vector<unsigned char>> save_state(const std::vector<output_region>& outputs,
                                                   cudaStream_t stream) {
  std::vector<std::vector<unsigned char>> saved;
  for (const output_region& o : outputs) {
    if (!o.restore) continue;
    saved.emplace_back(o.bytes);
    MICROSCHED_CUDA_TRY(
        cudaMemcpyAsync(saved.back().data(), o.data, o.bytes, cudaMemcpyDeviceToHost, stream));
  }
  MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
  return saved;
}

void restore_state(const std::vector<output_region>& outputs,
                   const std::vector<std::vector<unsigned char>>& saved, cudaStream_t stream) {
  std::size_t k = 0;
  for (const output_region& o : outputs) {
    if (!o.restore) continue;
    MICROSCHED_CUDA_TRY(
        cudaMemcpyAsync(o.data, saved[k++].data(), o.bytes, cudaMemcpyHostToDevice, stream));
  }
  MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
}

std::vector<std::vector<unsigned char>> copy_outputs(const std::vector<output_region>& outputs,
                                                     cudaStream_t stream) {
  std::vector<std::vector<unsigned char>> copies;
  for (const output_region& o : outputs) {
    copies.emplace_back(o.bytes);
    MICROSCHED_CUDA_TRY(
        cudaMemcpyAsync(copies.back().data(), o.data, o.bytes, cudaMemcpyDeviceToHost, stream));
  }
  MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
  return copies;
}

std::uint64_t count_differing_bytes(const std::vector<std::vector<unsigned char>>& want,
                                    const std::vector<output_region>& outputs,
                                    cudaStream_t stream) {
  const auto got = copy_outputs(outputs, stream);
  std::uint64_t differ = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    differ += differing_bytes(outputs[i], want[i], got[i]);
  return differ;
}

namespace {
//! Values of type T in `want` and `got` that differ by more than `tolerance` relative to the larger
//! magnitude; NaNs agree with NaNs.
template <class T>
std::uint64_t differing_values(const std::vector<unsigned char>& want,
                               const std::vector<unsigned char>& got, std::size_t bytes,
                               double tolerance) {
  std::uint64_t differ = 0;
  for (std::size_t b = 0; b + sizeof(T) <= bytes; b += sizeof(T)) {
    T a{};
    T c{};
    std::memcpy(&a, want.data() + b, sizeof(T));
    std::memcpy(&c, got.data() + b, sizeof(T));
    const double x = a;
    const double y = c;
    if (std::isnan(x) || std::isnan(y)) {
      differ += std::isnan(x) && std::isnan(y) ? 0 : 1;
      continue;
    }
    if (x == y) continue;  // equal infinities, and -0 against +0
    if (!std::isfinite(x) || !std::isfinite(y)) {
      ++differ;  // an infinity is within no tolerance of anything else
      continue;
    }
    differ += std::fabs(x - y) <= tolerance * std::max(std::fabs(x), std::fabs(y)) ? 0 : 1;
  }
  return differ * sizeof(T);
}
}  // namespace

std::uint64_t differing_bytes(const output_region& region, const std::vector<unsigned char>& want,
                              const std::vector<unsigned char>& got) {
  const std::size_t n = std::min(want.size(), got.size());
  std::uint64_t differ = std::max(want.size(), got.size()) - n;
  switch (region.values) {
    case output_region::compare_as::floats:
      differ += differing_values<float>(want, got, n, region.tolerance);
      break;
    case output_region::compare_as::doubles:
      differ += differing_values<double>(want, got, n, region.tolerance);
      break;
    case output_region::compare_as::bytes:
      for (std::size_t b = 0; b < n; ++b) differ += want[b] != got[b];
      return differ;
  }
  const std::size_t value =
      region.values == output_region::compare_as::floats ? sizeof(float) : sizeof(double);
  for (std::size_t b = n - n % value; b < n; ++b) differ += want[b] != got[b];  // a partial value
  return differ;
}

}  // namespace detail
}  // namespace microsched
