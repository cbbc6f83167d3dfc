// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <cooperative_groups.h>

#include <string>

#include "microsched/error.hpp"
#include "remap/realistic.hpp"
#include "remap/remapped_prologue.cuh"

namespace microsched::remap_kernels {

namespace {

namespace cg = cooperative_groups;

constexpr int series_terms = 96;
constexpr int fraction_terms = 48;
constexpr float tiny = 1.0e-30f;

//! log of the common factor x^a e^-x / Gamma(a): computed before the branch, carried along.
__device__ __forceinline__ float log_prefactor(float a, float x) {
  return -x + a * __logf(x) - lgammaf(a);
}

//! Q(a, x) = 1 - P(a, x), P by its power series (x < a + 1).
template <class Counter>
__device__ __forceinline__ float q_by_series(float a, float x, float log_pre, Counter& cfe) {
  float ap = a;
  float term = __fdividef(1.0f, a);
  float sum = term;
#pragma unroll 4
  for (int k = 0; k < series_terms; ++k) {
    cfe.step();
    ap += 1.0f;
    term *= __fdividef(x, ap);
    sum += term;
  }
  return 1.0f - sum * __expf(log_pre);
}

//! Q(a, x) by the modified Lentz continued fraction (x >= a + 1).
template <class Counter>
__device__ __forceinline__ float q_by_fraction(float a, float x, float log_pre, Counter& cfe) {
  float b = x + 1.0f - a;
  float c = 1.0f / tiny;
  float d = __fdividef(1.0f, b);
  float h = d;
#pragma unroll 4
  for (int i = 1; i <= fraction_terms; ++i) {
    cfe.step();
    const float an = -static_cast<float>(i) * (static_cast<float>(i) - a);
    b += 2.0f;
    d = fmaf(an, d, b);
    d = fabsf(d) < tiny ? tiny : d;
    c = b + __fdividef(an, c);
    c = fabsf(c) < tiny ? tiny : c;
    d = __fdividef(1.0f, d);
    h *= d * c;
  }
  return __expf(log_pre) * h;
}

//! The per-element code after the branch condition, shared by both kernels.
template <class Counter>
__device__ __forceinline__ float q_of(bool series, float a, float x, float log_pre, Counter& cfe) {
  return series ? q_by_series(a, x, log_pre, cfe) : q_by_fraction(a, x, log_pre, cfe);
}

template <remap_variant Variant, int BlockThreads, bool Count>
__global__ void __launch_bounds__(BlockThreads)
    chi_square_kernel(const float* __restrict__ a_in, const float* __restrict__ x_in,
                      float* __restrict__ q_out, int n, remap::cfe_totals* cfe_out) {
  constexpr int threads = BlockThreads;
  const unsigned tid = cg::this_thread_block().thread_rank();
  const unsigned base = blockIdx.x * threads;
  remap::cfe_counter<Count> cfe(tid % warp_size);
  const bool valid = base + tid < static_cast<unsigned>(n);
  const float a = valid ? a_in[base + tid] : 1.0f;
  const float x = valid ? x_in[base + tid] : 1.0f;
  float log_pre = log_prefactor(a, x);
  unsigned series = x < a + 1.0f ? 1u : 0u;
  unsigned id = tid;
  if constexpr (Variant != remap_variant::original) {
    using site = remap_site<Variant, threads, 2, 16, float>;
    __shared__ typename site::temp_storage storage;
    id = site::run(storage, tid, series, log_pre);
  }
  const unsigned i = base + id;
  if (i < static_cast<unsigned>(n)) {
    // reference redirection: the thread reads the inputs of the data it took over
    q_out[i] = q_of(series != 0, a_in[i], x_in[i], log_pre, cfe);
  }
  cfe.flush(cfe_out);
}

template <remap_variant Variant, int BlockThreads>
void launch(const float* a, const float* x, float* q, int n, remap::cfe_totals* cfe,
            cudaStream_t stream) {
  const int blocks = (n + BlockThreads - 1) / BlockThreads;
  if (blocks == 0) return;
  if (cfe != nullptr) {
    chi_square_kernel<Variant, BlockThreads, true>
        <<<blocks, BlockThreads, 0, stream>>>(a, x, q, n, cfe);
  } else {
    chi_square_kernel<Variant, BlockThreads, false>
        <<<blocks, BlockThreads, 0, stream>>>(a, x, q, n, cfe);
  }
  MICROSCHED_CHECK_LAUNCH("chi_square_kernel");
}

}  // namespace

void launch_chi_square_pvalues(remap_variant variant, int block_threads, const float* a,
                               const float* x, float* q, int n, remap::cfe_totals* cfe,
                               cudaStream_t stream) {
  if (n < 0) throw_invalid("n", n, "must be >= 0");
  if (block_threads != 256 && block_threads != 1024) {
    throw_invalid("block_threads", block_threads, "compiled for 256 and 1024");
  }
  switch (variant) {
    case remap_variant::original:
      return block_threads == 256 ? launch<remap_variant::original, 256>(a, x, q, n, cfe, stream)
                                  : launch<remap_variant::original, 1024>(a, x, q, n, cfe, stream);
    case remap_variant::head_or_tail:
      return block_threads == 256
                 ? launch<remap_variant::head_or_tail, 256>(a, x, q, n, cfe, stream)
                 : launch<remap_variant::head_or_tail, 1024>(a, x, q, n, cfe, stream);
    case remap_variant::head_or_tail16:
      return block_threads == 256
                 ? launch<remap_variant::head_or_tail16, 256>(a, x, q, n, cfe, stream)
                 : launch<remap_variant::head_or_tail16, 1024>(a, x, q, n, cfe, stream);
    case remap_variant::data_group_index:
      return block_threads == 256
                 ? launch<remap_variant::data_group_index, 256>(a, x, q, n, cfe, stream)
                 : launch<remap_variant::data_group_index, 1024>(a, x, q, n, cfe, stream);
  }
  throw std::invalid_argument(std::string("variant = ") + variant_name(variant) + ": unknown");
}

}  // namespace microsched::remap_kernels
