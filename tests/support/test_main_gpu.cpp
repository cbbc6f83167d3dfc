// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// doctest main for device tests: where no CUDA device answers, say so and exit 77, which ctest
// reports as "Skipped" (SKIP_RETURN_CODE), so a machine without a GPU never counts them as passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>

#include "microsched/device.hpp"

int main(int argc, char** argv) {
  if (microsched::cuda_device_count() == 0) {
    std::printf("SKIPPED: no CUDA GPU on this machine; device tests not run\n");
    return 77;
  }
  // Tests never read or write the user's calibration cache (schedule/calibration_file.hpp).
  ::setenv("MICROSCHED_CACHE", "off", 1);
  const auto info = microsched::current_device();
  std::printf("device: %s\n", microsched::describe(info).c_str());
  doctest::Context context(argc, argv);
  return context.run();
}
