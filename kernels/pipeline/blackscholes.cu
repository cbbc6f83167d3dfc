// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Black-Scholes: nothing to gain from a remap (zhang2010 §5.6). The options stay on the device;
// every iteration prices one region. The "optimisation" regroups by moneyness and redirects,
// which only costs coalescing; the adaptive control is expected to switch it off.
#include <random>
#include <sstream>

#include "microsched/error.hpp"
#include "microsched/pipeline/cuda_memory.hpp"
#include "microsched/pipeline/regroup.hpp"
#include "pipeline_workloads.hpp"
#include "workload_outputs.hpp"

namespace microsched::pipeline::workloads {
namespace {

__device__ __forceinline__ float cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
              a5 = 1.330274429f, rsqrt2pi = 0.39894228040143267794f;
  const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float c = rsqrt2pi * __expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  if (d > 0) c = 1.0f - c;
  return c;
}

//! The per-element code, shared by both kernels.
__device__ __forceinline__ void price(float s, float x, float t, float* call, float* put) {
  const float r = 0.02f, v = 0.30f;
  const float sqrt_t = sqrtf(t);
  const float d1 = (__logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
  const float d2 = d1 - v * sqrt_t;
  const float e = __expf(-r * t);
  *call = s * cnd(d1) - x * e * cnd(d2);
  *put = x * e * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
}

__global__ void blackscholes_original(const float* s, const float* x, const float* t, float* call,
                                      float* put, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) price(s[i], x[i], t[i], call + i, put + i);
}

__global__ void blackscholes_redirected(const float* s, const float* x, const float* t,
                                        const std::uint32_t* map, std::uint32_t m, float* call,
                                        float* put, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t e = i < m ? map[i] : i;
  price(s[e], x[e], t[e], call + e, put + e);
}

constexpr int block = 256;

class blackscholes_program final : public program_base {
 public:
  explicit blackscholes_program(const blackscholes_options& o) : o_(o) {
    if (o.elements == 0 || o.elements > (std::size_t{1} << 31))
      throw_invalid("elements", o.elements, "must be in 1..2^31");
    if (o.regions < 1) throw_invalid("regions", o.regions, "must be >= 1");
    const std::size_t total = o.elements * static_cast<std::size_t>(o.regions);
    s_.resize(total);
    x_.resize(total);
    std::vector<float> t(total);
    std::mt19937 rng(o.seed);
    std::uniform_real_distribution<float> us(5, 30), ux(1, 100), ut(0.25f, 10);
    for (std::size_t i = 0; i < total; ++i) {
      s_[i] = us(rng);
      x_[i] = ux(rng);
      t[i] = ut(rng);
    }
    d_s_ = device_buffer<float>(total);
    d_x_ = device_buffer<float>(total);
    d_t_ = device_buffer<float>(total);
    d_call_ = device_buffer<float>(total);
    d_put_ = device_buffer<float>(total);
    MICROSCHED_CUDA_TRY(cudaMemcpy(d_s_.data(), s_.data(), total * 4, cudaMemcpyHostToDevice));
    MICROSCHED_CUDA_TRY(cudaMemcpy(d_x_.data(), x_.data(), total * 4, cudaMemcpyHostToDevice));
    MICROSCHED_CUDA_TRY(cudaMemcpy(d_t_.data(), t.data(), total * 4, cudaMemcpyHostToDevice));
    cudaFuncAttributes attr{};
    MICROSCHED_CUDA_TRY(cudaFuncGetAttributes(&attr, blackscholes_original));
    MICROSCHED_CUDA_TRY(cudaFuncGetAttributes(&attr, blackscholes_redirected));
  }
  std::size_t chunk_count() const override { return o_.chunks; }
  std::size_t chunk_elements(std::size_t) const override { return o_.elements; }
  std::vector<remap_method> methods() const override {
    const std::size_t bytes = o_.elements * 4;
    return {{"regroup+redirection", bytes, bytes}};
  }
  void prepare(int, int slots) override {
    if (static_cast<int>(staging_.size()) == slots) return;  // staging kept across runs
    staging_.clear();
    d_map_.clear();
    for (int k = 0; k < slots; ++k) {
      staging_.emplace_back(o_.elements);
      d_map_.emplace_back(o_.elements);
    }
  }
  std::size_t base(std::size_t chunk) const {
    return (chunk % static_cast<std::size_t>(o_.regions)) * o_.elements;
  }
  transform_outcome transform(const transform_job& job) override {
    const std::size_t b = base(job.chunk) + job.begin;
    std::vector<std::uint32_t> key(job.end - job.begin);
    for (std::size_t k = 0; k < key.size(); ++k) key[k] = s_[b + k] > x_[b + k] ? 1u : 0u;
    if (job.cancelled()) return {};  // launched without it: the result would be discarded
    const auto source = regroup(key);
    std::uint32_t* out = staging_[static_cast<std::size_t>(job.slot)].data() + job.begin;
    for (std::size_t k = 0; k < source.size(); ++k)
      out[k] = static_cast<std::uint32_t>(job.begin + source[k]);
    return {double(pure_warps(key, identity(key.size()))), double(pure_warps(key, source))};
  }
  void upload(const transform_job& job, stream_t st) override {
    const auto slot = static_cast<std::size_t>(job.slot);
    MICROSCHED_CUDA_TRY(cudaMemcpyAsync(d_map_[slot].data() + job.begin,
                                        staging_[slot].data() + job.begin,
                                        (job.end - job.begin) * 4, cudaMemcpyHostToDevice, st));
  }
  unsigned grid() const { return static_cast<unsigned>((o_.elements + block - 1) / block); }
  void launch_original(std::size_t chunk, stream_t st) override {
    const std::size_t b = base(chunk);
    blackscholes_original<<<grid(), block, 0, st>>>(
        d_s_.data() + b, d_x_.data() + b, d_t_.data() + b, d_call_.data() + b, d_put_.data() + b,
        static_cast<std::uint32_t>(o_.elements));
    MICROSCHED_CHECK_LAUNCH("blackscholes_original");
  }
  void launch_optimised(const transform_job& job, stream_t st) override {
    const std::size_t b = base(job.chunk);
    blackscholes_redirected<<<grid(), block, 0, st>>>(
        d_s_.data() + b, d_x_.data() + b, d_t_.data() + b,
        d_map_[static_cast<std::size_t>(job.slot)].data(),
        static_cast<std::uint32_t>(job.transformed), d_call_.data() + b, d_put_.data() + b,
        static_cast<std::uint32_t>(o_.elements));
    MICROSCHED_CHECK_LAUNCH("blackscholes_redirected");
  }
  void poison_outputs() override { poison_and_wait(d_call_, d_put_); }
  std::vector<std::uint32_t> outputs() override { return output_words(d_call_, d_put_); }
  std::string describe() const override {
    std::ostringstream s;
    s << "blackscholes iterations=" << o_.chunks << " options/iteration=" << o_.elements
      << " regions=" << o_.regions;
    return s.str();
  }

 private:
  blackscholes_options o_;
  std::vector<float> s_, x_;
  device_buffer<float> d_s_, d_x_, d_t_, d_call_, d_put_;
  std::vector<pinned_buffer<std::uint32_t>> staging_;
  std::vector<device_buffer<std::uint32_t>> d_map_;
};

}  // namespace

std::unique_ptr<program_base> make_blackscholes(const blackscholes_options& options) {
  return std::make_unique<blackscholes_program>(options);
}

}  // namespace microsched::pipeline::workloads
