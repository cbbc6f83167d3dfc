// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A consumer's port of a small termination-divergent kernel (Collatz stopping times: tasks of
// 0 to several hundred steps) with microsched::scheduler, checked against the same code run as a
// plain one-thread-per-element kernel and against the host.
// example-begin port-includes
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <microsched/device.hpp>     // no_device_reason, no_gpu_exit_code
#include <microsched/error.hpp>      // MICROSCHED_CUDA_TRY, MICROSCHED_CHECK_LAUNCH
#include <microsched/scheduler.cuh>  // scheduler, schedule_arguments, task_id
#include <microsched/version.hpp>    // MICROSCHED_VERSION_STRING
#include <string>
#include <vector>
// example-end port-includes

// example-begin port-program
//! Collatz stopping time of t + 1: the whole state of a task is its value and its step count.
struct collatz_program {
  struct context {
    std::uint64_t x = 1;
    std::uint32_t steps = 0;
  };
  std::uint32_t* out = nullptr;  // one result per task; programs hold pointers, own nothing

  __device__ context begin(microsched::task_id t) const { return {t + 1, 0}; }
  //! One step; true when the task is finished. Task 0 (x = 1) finishes at its first call
  //! without counting a step, so a zero-step task costs one call.
  __device__ bool step(context& c) const {
    if (c.x != 1) {
      c.x = (c.x % 2 == 0) ? c.x / 2 : 3 * c.x + 1;
      ++c.steps;
    }
    return c.x == 1;
  }
  __device__ void end(microsched::task_id t, const context& c) const { out[t] = c.steps; }
};
// example-end port-program

//! The same steps as a plain kernel: one thread per task.
__global__ void collatz_vanilla(collatz_program program, microsched::task_id n) {
  const microsched::task_id t =
      blockIdx.x * static_cast<microsched::task_id>(blockDim.x) + threadIdx.x;
  if (t >= n) return;
  auto c = program.begin(t);
  while (!program.step(c)) {
  }
  program.end(t, c);
}

namespace {

std::uint32_t host_collatz(std::uint64_t x) {
  std::uint32_t steps = 0;
  for (; x != 1; ++steps) x = (x % 2 == 0) ? x / 2 : 3 * x + 1;
  return steps;
}

std::vector<std::uint32_t> to_host(const std::uint32_t* device, std::size_t n) {
  std::vector<std::uint32_t> host(n);
  MICROSCHED_CUDA_TRY(
      cudaMemcpy(host.data(), device, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace

int main(int argc, char** argv) {
  // example-begin port-version
  if (argc == 2 && std::string(argv[1]) == "--version") {
    std::printf("port (microsched) %s\n", MICROSCHED_VERSION_STRING);
    return 0;
  }
  // example-end port-version
  if (argc > 1) {
    std::fprintf(stderr, "port: error: unknown argument '%s' (usage: port [--version])\n", argv[1]);
    return 2;
  }
  // example-begin port-no-gpu
  if (const std::string why = microsched::no_device_reason(); !why.empty()) {
    std::fprintf(stderr, "port: no GPU: %s; nothing was run (exit 77)\n", why.c_str());
    return microsched::no_gpu_exit_code;
  }
  // example-end port-no-gpu
  try {
    const microsched::task_id n = 100000;
    std::uint32_t* vanilla_out = nullptr;
    std::uint32_t* ported_out = nullptr;
    MICROSCHED_CUDA_TRY(cudaMalloc(&vanilla_out, n * sizeof(std::uint32_t)));
    MICROSCHED_CUDA_TRY(cudaMalloc(&ported_out, n * sizeof(std::uint32_t)));
    // Poisoned, so that a task the scheduler skips shows up as a mismatch.
    MICROSCHED_CUDA_TRY(cudaMemset(vanilla_out, 0xff, n * sizeof(std::uint32_t)));
    MICROSCHED_CUDA_TRY(cudaMemset(ported_out, 0xff, n * sizeof(std::uint32_t)));

    collatz_vanilla<<<static_cast<unsigned>((n + 127) / 128), 128>>>({vanilla_out}, n);
    MICROSCHED_CHECK_LAUNCH("collatz_vanilla");

    // example-begin port-run
    cudaStream_t stream = nullptr;
    MICROSCHED_CUDA_TRY(cudaStreamCreate(&stream));
    microsched::schedule_arguments args;                 // the library's default schedule
    microsched::scheduler<collatz_program> sched(args);  // checks args, queries the GPU
    sched.run(collatz_program{ported_out}, n, stream);   // asynchronous, like a launch
    MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
    MICROSCHED_CUDA_TRY(cudaStreamDestroy(stream));
    // example-end port-run

    const auto want = to_host(vanilla_out, n);
    const auto got = to_host(ported_out, n);
    MICROSCHED_CUDA_TRY(cudaFree(vanilla_out));
    MICROSCHED_CUDA_TRY(cudaFree(ported_out));
    std::size_t differ = 0;
    for (microsched::task_id t = 0; t < n; ++t) {
      differ += got[t] != want[t] || want[t] != host_collatz(t + 1);
    }
    std::printf("port: %llu tasks, %zu differ from the plain kernel or the host\n",
                static_cast<unsigned long long>(n), differ);
    return differ == 0 ? 0 : 1;
    // example-begin port-errors
  } catch (const microsched::no_device_error& e) {  // a GPU lost, or no driver after all
    std::fprintf(stderr, "port: no GPU: %s; nothing was run (exit 77)\n", e.what());
    return microsched::no_gpu_exit_code;
  } catch (const std::exception& e) {  // microsched::cuda_error, std::invalid_argument, ...
    std::fprintf(stderr, "port: error: %s\n", e.what());
    return 1;
  }
  // example-end port-errors
}
