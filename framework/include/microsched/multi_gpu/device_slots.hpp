// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file device_slots.hpp
//! The GPUs a multi-GPU scheduler runs on: the list checked against the visible devices, a guard
//! that makes one current for a scope, and what the host knows of their peer access.

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "microsched/device.hpp"
#include "microsched/error.hpp"

namespace microsched::multi_gpu {

//! One slot of a multi-GPU run: its index among the slots and its CUDA ordinal. A program
//! factory gets it to build the program whose outputs live on that GPU.
struct device_slot {
  int slot = 0;
  int device = 0;
};

//! Makes `device` current for this thread until the end of the scope.
class device_guard {
 public:
  explicit device_guard(int device) {
    MICROSCHED_CUDA_TRY(cudaGetDevice(&previous_));
    MICROSCHED_CUDA_TRY(cudaSetDevice(device));
  }
  ~device_guard() { cudaSetDevice(previous_); }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  int previous_ = 0;
};

//! `requested`, or every visible device when it is empty. Throws no_device_error without a GPU
//! and std::invalid_argument for an ordinal that is not visible.
[[nodiscard]] inline std::vector<int> resolve_devices(const std::vector<int>& requested) {
  const int visible = cuda_device_count();
  if (visible == 0) throw no_device_error(no_device_reason());
  if (requested.empty()) {
    std::vector<int> all(static_cast<std::size_t>(visible));
    for (int d = 0; d < visible; ++d) all[static_cast<std::size_t>(d)] = d;
    return all;
  }
  for (const int d : requested) {
    if (d < 0 || d >= visible) {
      throw_invalid("device", d,
                    "is not a visible CUDA device (" + std::to_string(visible) + " visible)");
    }
  }
  return requested;
}

//! "every pair", "none" or "k of n pairs": which distinct GPUs of `devices` can reach each
//! other's memory (cudaDeviceCanAccessPeer both ways), for the report.
[[nodiscard]] inline std::string peer_access_summary(const std::vector<int>& devices) {
  int pairs = 0;
  int reachable = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    for (std::size_t j = i + 1; j < devices.size(); ++j) {
      if (devices[i] == devices[j]) continue;
      ++pairs;
      int ij = 0;
      int ji = 0;
      MICROSCHED_CUDA_TRY(cudaDeviceCanAccessPeer(&ij, devices[i], devices[j]));
      MICROSCHED_CUDA_TRY(cudaDeviceCanAccessPeer(&ji, devices[j], devices[i]));
      reachable += ij != 0 && ji != 0;
    }
  }
  if (pairs == 0) return "one GPU";
  if (reachable == pairs) return "every pair";
  if (reachable == 0) return "none";
  return std::to_string(reachable) + " of " + std::to_string(pairs) + " pairs";
}

}  // namespace microsched::multi_gpu
