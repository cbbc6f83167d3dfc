// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A consumer's remapped kernel: a two-path branch regrouped with Head-or-Tail, checked bit for bit
// against the original kernel built from the same per-element code.
// example-begin remap-includes
#include <cooperative_groups.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <microsched/device.hpp>              // no_device_reason, no_gpu_exit_code
#include <microsched/error.hpp>               // MICROSCHED_CUDA_TRY, MICROSCHED_CHECK_LAUNCH
#include <microsched/remap/head_or_tail.hpp>  // block_head_or_tail
#include <string>
#include <vector>
// example-end remap-includes

//! Two expensive paths; which one an element takes depends on its value.
__device__ float path_a(float v) {
  for (int k = 0; k < 48; ++k) v = fmaf(v, 0.999f, 1e-3f);
  return v;
}
__device__ float path_b(float v) {
  for (int k = 0; k < 48; ++k) v = sinf(v) * 0.9f;
  return v;
}

__global__ void branch_original(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i] > 0.5f ? path_a(in[i]) : path_b(in[i]);
}

// example-begin remap-kernel
template <int BlockThreads>  // must equal blockDim.x: it sizes the shared id pool
__global__ void branch_remapped(const float* in, float* out, int n) {
  using remapper = microsched::remap::block_head_or_tail<BlockThreads>;
  __shared__ typename remapper::temp_storage storage;
  const unsigned tid = cooperative_groups::this_thread_block().thread_rank();
  const int base = blockIdx.x * BlockThreads;
  const bool valid = base + static_cast<int>(tid) < n;  // every thread joins the remap
  const bool cond = valid && in[base + tid] > 0.5f;
  // Warps regroup so that their threads agree; each thread continues with the new id.
  const auto r = remapper(storage, tid).remap(cond);
  const int i = base + static_cast<int>(r.id);
  if (i >= n) return;
  out[i] = r.cond ? path_a(in[i]) : path_b(in[i]);  // depends on the data only, not the thread
}
// example-end remap-kernel

int main() {
  if (const std::string why = microsched::no_device_reason(); !why.empty()) {
    std::fprintf(stderr, "remap: no GPU: %s; nothing was run (exit 77)\n", why.c_str());
    return microsched::no_gpu_exit_code;
  }
  try {
    constexpr int block = 128;
    const int n = 100003;  // a partial last block
    std::vector<float> input(n);
    for (int i = 0; i < n; ++i) input[i] = static_cast<float>((i * 2654435761u) % 1000u) / 1000.0f;
    const std::size_t bytes = n * sizeof(float);
    float* in = nullptr;
    float* original = nullptr;
    float* remapped = nullptr;
    MICROSCHED_CUDA_TRY(cudaMalloc(&in, bytes));
    MICROSCHED_CUDA_TRY(cudaMalloc(&original, bytes));
    MICROSCHED_CUDA_TRY(cudaMalloc(&remapped, bytes));
    MICROSCHED_CUDA_TRY(cudaMemcpy(in, input.data(), bytes, cudaMemcpyHostToDevice));
    MICROSCHED_CUDA_TRY(cudaMemset(original, 0xff, bytes));  // poisoned: NaN where not written
    MICROSCHED_CUDA_TRY(cudaMemset(remapped, 0xff, bytes));
    const unsigned blocks = (n + block - 1) / block;
    branch_original<<<blocks, block>>>(in, original, n);
    MICROSCHED_CHECK_LAUNCH("branch_original");
    branch_remapped<block><<<blocks, block>>>(in, remapped, n);
    MICROSCHED_CHECK_LAUNCH("branch_remapped");
    std::vector<float> want(n);
    std::vector<float> got(n);
    MICROSCHED_CUDA_TRY(cudaMemcpy(want.data(), original, bytes, cudaMemcpyDeviceToHost));
    MICROSCHED_CUDA_TRY(cudaMemcpy(got.data(), remapped, bytes, cudaMemcpyDeviceToHost));
    for (float* p : {in, original, remapped}) MICROSCHED_CUDA_TRY(cudaFree(p));
    int differ = 0;
    int unwritten = 0;
    for (int i = 0; i < n; ++i) {
      differ += std::memcmp(&want[i], &got[i], sizeof(float)) != 0;
      unwritten += want[i] != want[i];  // NaN: the poison survived
    }
    std::printf("remap: %d elements, %d differ from the original kernel, %d unwritten\n", n, differ,
                unwritten);
    return differ == 0 && unwritten == 0 ? 0 : 1;
  } catch (const microsched::no_device_error& e) {
    std::fprintf(stderr, "remap: no GPU: %s; nothing was run (exit 77)\n", e.what());
    return microsched::no_gpu_exit_code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "remap: error: %s\n", e.what());
    return 1;
  }
}
