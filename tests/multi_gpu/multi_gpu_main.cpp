// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// doctest main for the tests that need several GPUs: below two it says so and exits 77, which
// ctest reports as "Skipped" (SKIP_RETURN_CODE).
#define DOCTEST_CONFIG_IMPLEMENT
#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <cstdio>

#include "microsched/device.hpp"

int main(int argc, char** argv) {
  const int gpus = microsched::cuda_device_count();
  if (gpus < 2) {
    std::printf("SKIPPED: %d CUDA GPU(s) on this machine; multi-GPU tests need two or more\n",
                gpus);
    return microsched::no_gpu_exit_code;
  }
  for (int d = 0; d < gpus; ++d) {
    cudaSetDevice(d);
    std::printf("device %d: %s\n", d, microsched::describe(microsched::current_device()).c_str());
  }
  cudaSetDevice(0);
  doctest::Context context(argc, argv);
  return context.run();
}
