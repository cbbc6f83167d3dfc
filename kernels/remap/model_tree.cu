// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <cooperative_groups.h>

#include <random>
#include <string>

#include "microsched/error.hpp"
#include "remap/realistic.hpp"
#include "remap/remapped_prologue.cuh"

namespace microsched::remap_kernels {

namespace {

namespace cg = cooperative_groups;

constexpr int features = model_tree_features;
constexpr int hidden = 32;
constexpr int leaves = 4;

struct leaf_model {
  float w1[hidden][features];  // (unit, feature)
  float b1[hidden];
  float w2[hidden];
  float b2;
};

__constant__ leaf_model models[leaves];
__constant__ float thresholds[3];  // root on feature 0, left child on 1, right child on 2

template <int Leaf>
__device__ __forceinline__ float activation(float z) {
  if constexpr (Leaf == 0) return tanhf(z);
  if constexpr (Leaf == 1) return __fdividef(1.0f, 1.0f + __expf(-z));
  if constexpr (Leaf == 2) return z > 15.0f ? z : __logf(1.0f + __expf(z));
  const float r = fmaxf(z, 0.0f);
  return r * r;
}

//! Leaf model: 8 -> 32 -> 1 with the leaf's activation; one counted step per hidden unit.
template <int Leaf, class Counter>
__device__ __forceinline__ float evaluate_leaf(const float (&f)[features], Counter& cfe) {
  const leaf_model& m = models[Leaf];
  float y = m.b2;
#pragma unroll 4
  for (int h = 0; h < hidden; ++h) {
    cfe.step();
    float z = m.b1[h];
#pragma unroll
    for (int k = 0; k < features; ++k) z = fmaf(m.w1[h][k], f[k], z);
    y = fmaf(m.w2[h], activation<Leaf>(z), y);
  }
  return y;
}

__device__ __forceinline__ unsigned leaf_of(const float (&f)[features]) {
  const bool right = f[0] >= thresholds[0];
  const bool high = right ? f[2] >= thresholds[2] : f[1] >= thresholds[1];
  return (right ? 2u : 0u) | (high ? 1u : 0u);
}

//! The per-element code: two nested levels of the tree, then the leaf's model.
template <class Counter>
__device__ __forceinline__ float evaluate_record(const float (&f)[features], Counter& cfe) {
  if (f[0] < thresholds[0]) {
    if (f[1] < thresholds[1]) return evaluate_leaf<0>(f, cfe);
    return evaluate_leaf<1>(f, cfe);
  }
  if (f[2] < thresholds[2]) return evaluate_leaf<2>(f, cfe);
  return evaluate_leaf<3>(f, cfe);
}

__device__ __forceinline__ void load_record(const float* __restrict__ records, unsigned i,
                                            float (&f)[features]) {
  const float4* row = reinterpret_cast<const float4*>(records + std::size_t{i} * features);
  const float4 lo = row[0], hi = row[1];
  f[0] = lo.x, f[1] = lo.y, f[2] = lo.z, f[3] = lo.w;
  f[4] = hi.x, f[5] = hi.y, f[6] = hi.z, f[7] = hi.w;
}

template <remap_variant Variant, int BlockThreads, bool Count>
__global__ void __launch_bounds__(BlockThreads)
    model_tree_kernel(const float* __restrict__ records, float* __restrict__ out, int n,
                      remap::cfe_totals* cfe_out) {
  constexpr int threads = BlockThreads;
  const unsigned tid = cg::this_thread_block().thread_rank();
  const unsigned base = blockIdx.x * threads;
  remap::cfe_counter<Count> cfe(tid % warp_size);
  unsigned i = base + tid;
  if constexpr (Variant != remap_variant::original) {
    // Before the tree: find each record's leaf, remap the block so that warps share leaves.
    const bool valid = i < static_cast<unsigned>(n);
    unsigned leaf = 0;
    if (valid) {
      float f[features];
      load_record(records, i, f);
      leaf = leaf_of(f);
    }
    using site = remap_site<Variant, threads, leaves, 16, unsigned>;
    __shared__ typename site::temp_storage storage;
    unsigned nothing = 0;  // no private state to carry: the records are re-read by new id
    i = base + site::run(storage, tid, leaf, nothing);
  }
  if (i < static_cast<unsigned>(n)) {
    float f[features];
    load_record(records, i, f);
    out[i] = evaluate_record(f, cfe);
  }
  cfe.flush(cfe_out);
}

template <remap_variant Variant, int BlockThreads>
void launch(const float* records, float* out, int n, remap::cfe_totals* cfe, cudaStream_t stream) {
  const int blocks = (n + BlockThreads - 1) / BlockThreads;
  if (blocks == 0) return;
  if (cfe != nullptr) {
    model_tree_kernel<Variant, BlockThreads, true>
        <<<blocks, BlockThreads, 0, stream>>>(records, out, n, cfe);
  } else {
    model_tree_kernel<Variant, BlockThreads, false>
        <<<blocks, BlockThreads, 0, stream>>>(records, out, n, cfe);
  }
  MICROSCHED_CHECK_LAUNCH("model_tree_kernel");
}

}  // namespace

void upload_model_tree_weights(unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> weight(0.0f, 0.35f);
  leaf_model host[leaves];
  for (auto& m : host) {
    for (auto& row : m.w1)
      for (auto& w : row) w = weight(rng);
    for (auto& b : m.b1) b = weight(rng);
    for (auto& w : m.w2) w = weight(rng);
    m.b2 = weight(rng);
  }
  const float cuts[3] = {0.5f, 0.5f, 0.5f};
  MICROSCHED_CUDA_TRY(cudaMemcpyToSymbol(models, host, sizeof(host)));
  MICROSCHED_CUDA_TRY(cudaMemcpyToSymbol(thresholds, cuts, sizeof(cuts)));
}

void launch_model_tree(remap_variant variant, int block_threads, const float* records, float* out,
                       int n, remap::cfe_totals* cfe, cudaStream_t stream) {
  if (n < 0) throw_invalid("n", n, "must be >= 0");
  if (block_threads != 256 && block_threads != 1024) {
    throw_invalid("block_threads", block_threads, "compiled for 256 and 1024");
  }
  switch (variant) {
    case remap_variant::original:
      return block_threads == 256
                 ? launch<remap_variant::original, 256>(records, out, n, cfe, stream)
                 : launch<remap_variant::original, 1024>(records, out, n, cfe, stream);
    case remap_variant::data_group_index:
      return block_threads == 256
                 ? launch<remap_variant::data_group_index, 256>(records, out, n, cfe, stream)
                 : launch<remap_variant::data_group_index, 1024>(records, out, n, cfe, stream);
    default:
      throw std::invalid_argument(std::string("variant = ") + variant_name(variant) +
                                  ": model_tree has four paths; use original or dgi");
  }
}

}  // namespace microsched::remap_kernels
