#pragma once
//! @file device_array.hpp
//! Minimal owning device array for the remap tests, benchmarks and samples.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "microsched/error.hpp"

namespace microsched::remap_kernels {

template <class T>
class device_array {
 public:
  explicit device_array(std::size_t size) : size_(size) {
    if (size_ > 0) MICROSCHED_CUDA_TRY(cudaMalloc(&data_, size_ * sizeof(T)));
  }
  explicit device_array(const std::vector<T>& host) : device_array(host.size()) { upload(host); }
  ~device_array() {
    if (data_ != nullptr) cudaFree(data_);
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;

  [[nodiscard]] T* get() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }

  void upload(const std::vector<T>& host) {
    if (host.size() != size_)
      throw_invalid("host.size()", host.size(), "must match the device array");
    if (size_ > 0) {
      MICROSCHED_CUDA_TRY(
          cudaMemcpy(data_, host.data(), size_ * sizeof(T), cudaMemcpyHostToDevice));
    }
  }
  [[nodiscard]] std::vector<T> download() const {
    std::vector<T> host(size_);
    if (size_ > 0) {
      MICROSCHED_CUDA_TRY(
          cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost));
    }
    return host;
  }
  //! Fills every byte with `byte` (poisons outputs before a run).
  void fill_bytes(int byte) {
    if (size_ > 0) MICROSCHED_CUDA_TRY(cudaMemset(data_, byte, size_ * sizeof(T)));
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace microsched::remap_kernels
