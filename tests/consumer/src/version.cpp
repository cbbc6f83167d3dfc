// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A consumer's C++ program, no CUDA source: it calls the host library, so it links the CUDA
//! runtime that the target's CUDA_RUNTIME_LIBRARY names. Prints the version and what the
//! device query says.
#include <cstdio>
#include <microsched/device.hpp>   // no_device_reason
#include <microsched/version.hpp>  // MICROSCHED_VERSION_STRING
#include <string>

int main() {
  std::printf("microsched %s\n", MICROSCHED_VERSION_STRING);
  const std::string why = microsched::no_device_reason();
  std::printf("%s\n", why.empty() ? "a GPU answers" : why.c_str());
  return 0;
}
