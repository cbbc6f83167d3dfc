// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <cooperative_groups.h>

#include <string>

#include "microsched/error.hpp"
#include "remap/micro_branch.hpp"
#include "remap/remapped_prologue.cuh"

namespace microsched::remap_kernels {

namespace {

namespace cg = cooperative_groups;

// Four FMAs whose order each path permutes; multipliers below 1 in magnitude keep x bounded.
template <int Op>
__device__ __forceinline__ float op(float x) {
  if constexpr (Op == 0) return fmaf(x, 0.9999f, 0.0100f);
  if constexpr (Op == 1) return fmaf(x, -0.9997f, 0.5000f);
  if constexpr (Op == 2) return fmaf(x, 0.9995f, -0.2500f);
  return fmaf(x, -0.9993f, 0.1250f);
}

// (path, position) -> op: eight permutations of {0, 1, 2, 3}.
constexpr int order[8][4] = {{0, 1, 2, 3}, {1, 0, 3, 2}, {2, 3, 0, 1}, {3, 2, 1, 0},
                             {0, 2, 1, 3}, {1, 3, 0, 2}, {2, 0, 3, 1}, {3, 1, 2, 0}};

//! One path: `work` iterations of 8 dependent FMAs, one counted step per iteration.
template <int Path, class Counter>
__device__ __forceinline__ float path_body(float x, int work, Counter& cfe) {
  constexpr int a = order[Path][0], b = order[Path][1], c = order[Path][2], d = order[Path][3];
#pragma unroll 2
  for (int i = 0; i < work; ++i) {
    cfe.step();
    x = op<d>(op<c>(op<b>(op<a>(x))));
    x = op<a>(op<b>(op<c>(op<d>(x))));
  }
  return x;
}

//! Levels nested if-else levels on the bits of `path` (the original kernel's branch).
template <int Levels, int Base, class Counter>
__device__ __forceinline__ float branch(unsigned path, float x, int work, Counter& cfe) {
  if constexpr (Levels == 0) {
    return path_body<Base>(x, work, cfe);
  } else {
    if ((path >> (Levels - 1)) & 1u) {
      return branch<Levels - 1, Base + (1 << (Levels - 1))>(path, x, work, cfe);
    } else {
      return branch<Levels - 1, Base>(path, x, work, cfe);
    }
  }
}

constexpr int levels_of(int paths) {
  return paths == 2 ? 1 : paths == 4 ? 2 : 3;
}

//! Computed before the branch; the remapped kernels carry it to the new owner of the data.
__device__ __forceinline__ float prologue(float v) {
  return fmaf(v, 0.5f, 0.25f);
}

template <int Paths, int BlockThreads, remap_variant Variant, int Neighbouring, bool Count>
__global__ void __launch_bounds__(BlockThreads)
    micro_branch_kernel(const float* __restrict__ operand, const std::uint8_t* __restrict__ path_of,
                        float* __restrict__ out, int n, int work, remap::cfe_totals* cfe_out) {
  const unsigned tid = cg::this_thread_block().thread_rank();
  const unsigned base = blockIdx.x * BlockThreads;
  remap::cfe_counter<Count> cfe(tid % warp_size);
  const bool valid = base + tid < static_cast<unsigned>(n);
  float x = valid ? prologue(operand[base + tid]) : 0.0f;
  unsigned path = valid ? path_of[base + tid] : 0u;
  unsigned id = tid;
  if constexpr (Variant != remap_variant::original) {
    using site = remap_site<Variant, BlockThreads, Paths, Neighbouring, float>;
    __shared__ typename site::temp_storage storage;
    id = site::run(storage, tid, path, x);
  }
  if (base + id < static_cast<unsigned>(n)) {
    out[base + id] = branch<levels_of(Paths), 0>(path, x, work, cfe);
  }
  cfe.flush(cfe_out);
}

using launcher = void (*)(const float*, const std::uint8_t*, float*, int, int, remap::cfe_totals*,
                          cudaStream_t);

template <int Paths, int BlockThreads, remap_variant Variant, int Neighbouring>
void launch(const float* operand, const std::uint8_t* path, float* out, int n, int work,
            remap::cfe_totals* cfe, cudaStream_t stream) {
  const int blocks = (n + BlockThreads - 1) / BlockThreads;
  if (blocks == 0) return;
  if (cfe != nullptr) {
    micro_branch_kernel<Paths, BlockThreads, Variant, Neighbouring, true>
        <<<blocks, BlockThreads, 0, stream>>>(operand, path, out, n, work, cfe);
  } else {
    micro_branch_kernel<Paths, BlockThreads, Variant, Neighbouring, false>
        <<<blocks, BlockThreads, 0, stream>>>(operand, path, out, n, work, cfe);
  }
  MICROSCHED_CHECK_LAUNCH("micro_branch_kernel");
}

struct entry {
  int paths, block_threads, neighbouring;
  remap_variant variant;
  launcher fn;
};

constexpr auto orig = remap_variant::original;
constexpr auto hot = remap_variant::head_or_tail;
constexpr auto hot16 = remap_variant::head_or_tail16;
constexpr auto dgi = remap_variant::data_group_index;

// The compiled configurations (neighbouring is ignored by the original and HoT: listed as 16).
constexpr entry table[] = {
    {2, 256, 16, orig, launch<2, 256, orig, 16>},     {2, 256, 16, hot, launch<2, 256, hot, 16>},
    {2, 256, 16, hot16, launch<2, 256, hot16, 16>},   {2, 256, 16, dgi, launch<2, 256, dgi, 16>},
    {2, 1024, 16, orig, launch<2, 1024, orig, 16>},   {2, 1024, 16, hot, launch<2, 1024, hot, 16>},
    {2, 1024, 16, hot16, launch<2, 1024, hot16, 16>}, {2, 1024, 16, dgi, launch<2, 1024, dgi, 16>},
    {4, 256, 16, orig, launch<4, 256, orig, 16>},     {4, 256, 4, dgi, launch<4, 256, dgi, 4>},
    {4, 256, 16, dgi, launch<4, 256, dgi, 16>},       {4, 256, 64, dgi, launch<4, 256, dgi, 64>},
    {4, 1024, 16, orig, launch<4, 1024, orig, 16>},   {4, 1024, 16, dgi, launch<4, 1024, dgi, 16>},
    {8, 256, 16, orig, launch<8, 256, orig, 16>},     {8, 256, 16, dgi, launch<8, 256, dgi, 16>},
};

const entry* find(const micro_config& c) {
  const int n = c.variant == dgi ? c.neighbouring : 16;
  for (const auto& e : table) {
    if (e.paths == c.paths && e.block_threads == c.block_threads && e.neighbouring == n &&
        e.variant == c.variant) {
      return &e;
    }
  }
  return nullptr;
}

}  // namespace

bool micro_supported(const micro_config& config) {
  return find(config) != nullptr;
}

void launch_micro_branch(const micro_config& config, const float* operand, const std::uint8_t* path,
                         float* out, int n, remap::cfe_totals* cfe, cudaStream_t stream) {
  if (n < 0) throw_invalid("n", n, "must be >= 0");
  if (config.work < 0) throw_invalid("work", config.work, "must be >= 0");
  const entry* e = find(config);
  if (e == nullptr) {
    throw std::invalid_argument("micro_branch: paths = " + std::to_string(config.paths) +
                                ", block_threads = " + std::to_string(config.block_threads) +
                                ", neighbouring = " + std::to_string(config.neighbouring) +
                                ", variant = " + variant_name(config.variant) +
                                ": not compiled (see micro_branch.cu's table)");
  }
  e->fn(operand, path, out, n, config.work, cfe, stream);
}

}  // namespace microsched::remap_kernels
