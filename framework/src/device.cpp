#include "microsched/device.hpp"

#include <cuda_runtime_api.h>

#include "microsched/error.hpp"

namespace microsched {

int cuda_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

device_info current_device() {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw no_device_error(std::string("no CUDA GPU found (") +
                          (rc == cudaSuccess ? "0 devices" : cudaGetErrorString(rc)) + ")");
  }
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
  MICROSCHED_CUDA_TRY(cudaDeviceGetAttribute(&info.clock_khz, cudaDevAttrClockRate, info.ordinal));
  MICROSCHED_CUDA_TRY(
      cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, info.ordinal));
  return info;
}

int current_sm_count() {
  if (cuda_device_count() == 0) throw no_device_error("no CUDA GPU found");
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
