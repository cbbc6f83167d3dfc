// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/device.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <map>
#include <mutex>

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

namespace {
//! The device's name through the driver's entry points, which costs microseconds where
//! cudaGetDeviceProperties fills every field, a millisecond before a first call.
std::string device_name(int ordinal) {
  using get_t = CUresult (*)(CUdevice*, int);
  using name_t = CUresult (*)(char*, int, CUdevice);
  void* get = nullptr;
  void* name = nullptr;
  cudaDriverEntryPointQueryResult found_get{};
  cudaDriverEntryPointQueryResult found_name{};
  char text[256] = {};
  CUdevice device{};
  if (cudaGetDriverEntryPointByVersion("cuDeviceGet", &get, 12000, cudaEnableDefault, &found_get) ==
          cudaSuccess &&
      cudaGetDriverEntryPointByVersion("cuDeviceGetName", &name, 12000, cudaEnableDefault,
                                       &found_name) == cudaSuccess &&
      found_get == cudaDriverEntryPointSuccess && found_name == cudaDriverEntryPointSuccess &&
      reinterpret_cast<get_t>(get)(&device, ordinal) == CUDA_SUCCESS &&
      reinterpret_cast<name_t>(name)(text, sizeof text - 1, device) == CUDA_SUCCESS) {
    return text;
  }
  (void)cudaGetLastError();
  cudaDeviceProp prop{};
  MICROSCHED_CUDA_TRY(cudaGetDeviceProperties(&prop, ordinal));
  return prop.name;
}

int attribute(cudaDeviceAttr what, int ordinal) {
  int value = 0;
  MICROSCHED_CUDA_TRY(cudaDeviceGetAttribute(&value, what, ordinal));
  return value;
}

device_info query_device(int ordinal) {
  device_info info;
  info.ordinal = ordinal;
  info.name = device_name(ordinal);
  info.sm_count = attribute(cudaDevAttrMultiProcessorCount, ordinal);
  info.compute_major = attribute(cudaDevAttrComputeCapabilityMajor, ordinal);
  info.compute_minor = attribute(cudaDevAttrComputeCapabilityMinor, ordinal);
  info.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, ordinal);
  info.shared_per_block_optin =
      static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal));
  info.shared_per_sm =
      static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, ordinal));
  info.shared_reserved_per_block =
      static_cast<std::size_t>(attribute(cudaDevAttrReservedSharedMemoryPerBlock, ordinal));
  return info;
}
}  // namespace

device_info current_device() {
  if (std::string why = no_device_reason(); !why.empty()) throw no_device_error(why);
  int ordinal = 0;
  MICROSCHED_CUDA_TRY(cudaGetDevice(&ordinal));
  // Queried once per device and process: every scheduler's constructor asks.
  static std::mutex mutex;
  static std::map<int, device_info> known;
  std::lock_guard lock(mutex);
  const auto found = known.find(ordinal);
  if (found != known.end()) return found->second;
  return known[ordinal] = query_device(ordinal);
}

int current_sm_count() {
  if (std::string why = no_device_reason(); !why.empty()) throw no_device_error(why);
  int device = 0;
  int count = 0;
  MICROSCHED_CUDA_TRY(cudaGetDevice(&device));
  MICROSCHED_CUDA_TRY(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

device_info with_clocks(device_info info) {
  info.clock_khz = attribute(cudaDevAttrClockRate, info.ordinal);
  info.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, info.ordinal);
  return info;
}

std::string describe(const device_info& info) {
  const int khz = info.clock_khz > 0 ? info.clock_khz : with_clocks(info).clock_khz;
  return info.name + " (sm_" + std::to_string(info.compute_major) +
         std::to_string(info.compute_minor) + ", " + std::to_string(info.sm_count) + " SMs, " +
         std::to_string(khz / 1000) + " MHz)";
}

}  // namespace microsched
