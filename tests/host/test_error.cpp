// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// error.hpp: a CUDA call that finds no usable GPU throws no_device_error (a program's exit 77),
// with the reason and where it surfaced; any other failure throws cuda_error with its code.
#include <doctest/doctest.h>

#include <string>

#include "microsched/device.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/error.hpp"

using microsched::cuda_error;
using microsched::no_device_error;

TEST_CASE("cuda_try: no device and no driver are no_device_error, other codes cuda_error") {
  for (const cudaError_t code : {cudaErrorNoDevice, cudaErrorInsufficientDriver}) {
    CAPTURE(code);
    try {
      microsched::detail::cuda_try(code, "cudaSomething(&x, 4)", "/src/dir/here.cu", 7);
      FAIL("no throw");
    } catch (const no_device_error& e) {
      // The reason first, then the function and the file's name, not the call's arguments.
      const std::string what = e.what();
      const std::string reason = microsched::no_device_reason().empty()
                                     ? std::string(cudaGetErrorString(code))
                                     : microsched::no_device_reason();
      CHECK(what.rfind(reason, 0) == 0);
      const std::string where = " (cudaSomething at here.cu:7)";
      REQUIRE(what.size() > where.size());
      CHECK(what.substr(what.size() - where.size()) == where);
      CHECK(what.find("&x") == std::string::npos);
    }
  }
  try {
    microsched::detail::cuda_try(cudaErrorInvalidValue, "cudaOther(y)", "there.cu", 9);
    FAIL("no throw");
  } catch (const cuda_error& e) {
    CHECK(e.code() == cudaErrorInvalidValue);
    CHECK(std::string(e.what()).find("cudaOther(y) failed at there.cu:9") == 0);
  }
}

TEST_CASE("a device_buffer where no GPU can be used says why, as no_device_error") {
  const std::string why = microsched::no_device_reason();
  if (!why.empty()) {
    try {
      microsched::device_buffer<int> b(16);
      FAIL("allocated without a GPU");
    } catch (const no_device_error& e) {
      CHECK(std::string(e.what()).find(why) != std::string::npos);
    }
  } else {
    microsched::device_buffer<int> b(16);  // a GPU: the allocation works
    CHECK(b.size() == 16);
  }
}
