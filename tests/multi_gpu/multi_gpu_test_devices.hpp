// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
// The slots a multi-GPU test runs on: GPU 0 listed three times (test_multi_gpu_one_gpu), or every
// visible GPU (test_multi_gpu, built with MICROSCHED_TEST_EVERY_GPU).
#include <vector>

#include "microsched/device.hpp"

inline std::vector<int> test_devices() {
#if defined(MICROSCHED_TEST_EVERY_GPU)
  std::vector<int> all;
  for (int d = 0; d < microsched::cuda_device_count(); ++d) all.push_back(d);
  return all;
#else
  return {0, 0, 0};
#endif
}
