// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// doctest main for host tests.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  // Tests never read or write the user's calibration cache (schedule/calibration_file.hpp).
  ::setenv("MICROSCHED_CACHE", "off", 1);
  doctest::Context context(argc, argv);
  return context.run();
}
