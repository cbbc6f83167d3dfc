// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file error.hpp
//! Errors thrown by the library. Every CUDA runtime call goes through MICROSCHED_CUDA_TRY, every
//! launch is followed by MICROSCHED_CHECK_LAUNCH: they clear the sticky-free error state and throw
//! microsched::cuda_error naming the call, file and line, or microsched::no_device_error where no
//! GPU can be used (no device, no driver, a driver too old), naming the reason, the function and
//! the file. The library never exits.

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>
#include <string_view>

#include "microsched/device.hpp"  // no_device_reason

namespace microsched {

//! A CUDA runtime call failed. what() names the call, the file and line, and CUDA's message.
class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const char* call, const char* file, int line)
      : std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                           ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")"),
        code_(code) {}
  [[nodiscard]] cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

//! No CUDA device could be used (none present, or the driver refused).
class no_device_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
inline void cuda_try(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) {
    (void)cudaGetLastError();  // clear the non-sticky error so later calls start clean
    // Without a driver the runtime answers "driver version is insufficient": name the cause.
    if (code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver) {
      // The reason first, then where it surfaced: the function's name and the file, not the call.
      std::string why = no_device_reason();
      if (why.empty()) why = cudaGetErrorString(code);
      const std::string_view text(call);
      const std::string function(text.substr(0, text.find('(')));
      const std::string_view path(file);
      const std::string name(path.substr(path.find_last_of('/') + 1));
      throw no_device_error(why + " (" + function + " at " + name + ":" + std::to_string(line) +
                            ")");
    }
    throw cuda_error(code, call, file, line);
  }
}
}  // namespace detail

//! Throws std::invalid_argument naming the parameter and the offending value.
template <class T>
[[noreturn]] void throw_invalid(const char* name, const T& value, const std::string& why) {
  throw std::invalid_argument(std::string(name) + " = " + std::to_string(value) + ": " + why);
}

//! The same for a value that is text (e.g. "empty" for a missing function).
[[noreturn]] inline void throw_invalid(const char* name, const char* value,
                                       const std::string& why) {
  throw std::invalid_argument(std::string(name) + " = " + value + ": " + why);
}

}  // namespace microsched

#define MICROSCHED_CUDA_TRY(call) ::microsched::detail::cuda_try((call), #call, __FILE__, __LINE__)

//! After a kernel launch: launch-configuration errors now, asynchronous faults at the next sync.
#define MICROSCHED_CHECK_LAUNCH(name) \
  ::microsched::detail::cuda_try(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)
