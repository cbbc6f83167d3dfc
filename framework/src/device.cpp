// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/device.hpp"

#include <cuda_runtime_api.h>

#include "microsched/error.hpp"

namespace microsched {

namespace {

//! "12.4" from CUDA's integer version 12040.
std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

//! The reason for a failed or empty cudaGetDeviceCount. cudaErrorInsufficientDriver is also what
//! the runtime answers where no driver is installed at all; cudaDriverGetVersion tells the two
//! apart (it reports 0 without a driver).
std::string reason_for(cudaError_t rc, int count) {
  int driver = 0;
  int runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  (void)cudaGetLastError();
  if (driver == 0) return "no NVIDIA driver is installed (libcuda not found)";
  if (rc == cudaErrorInsufficientDriver) {
    return "the NVIDIA driver is too old: it supports CUDA " + cuda_version_text(driver) +
           ", this program needs CUDA " + cuda_version_text(runtime) + " (update the driver)";
  }
  if (rc == cudaSuccess && count == 0) {
    return "no CUDA GPU found (driver for CUDA " + cuda_version_text(driver) + ", 0 devices)";
  }
  return std::string("no CUDA GPU usable (") + cudaGetErrorName(rc) + ": " +
         cudaGetErrorString(rc) + ")";
}

}  // namespace

int cuda_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

std::string no_device_reason() {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc == cudaSuccess && count > 0) return {};
  (void)cudaGetLastError();
  return reason_for(rc, count);
}

device_info current_device() {
  if (std::string why = no_device_reason(); !why.empty()) throw no_device_error(why);
  device_info info;
  MICROSCHED_CUDA_TRY(cudaGetDevice(&info.ordinal));
  cudaDeviceProp prop{};
  MICROSCHED_CUDA_TRY(cudaGetDeviceProperties(&prop, info.ordinal));
  info.name = prop.name;
  info.sm_count = prop.multiProcessorCount;
  info.compute_major = prop.major;
  info.compute_minor = prop.minor;
  info.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  info.shared_per_block_optin = prop.sharedMemPerBlockOptin;
  info.shared_per_sm = prop.sharedMemPerMultiprocessor;
  info.shared_reserved_per_block = prop.reservedSharedMemPerBlock;
  MICROSCHED_CUDA_TRY(cudaDeviceGetAttribute(&info.clock_khz, cudaDevAttrClockRate, info.ordinal));
  MICROSCHED_CUDA_TRY(
      cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, info.ordinal));
  return info;
}

int current_sm_count() {
  if (std::string why = no_device_reason(); !why.empty()) throw no_device_error(why);
  int device = 0;
  int count = 0;
  MICROSCHED_CUDA_TRY(cudaGetDevice(&device));
  MICROSCHED_CUDA_TRY(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

std::string describe(const device_info& info) {
  return info.name + " (sm_" + std::to_string(info.compute_major) +
         std::to_string(info.compute_minor) + ", " + std::to_string(info.sm_count) + " SMs, " +
         std::to_string(info.clock_khz / 1000) + " MHz)";
}

}  // namespace microsched
