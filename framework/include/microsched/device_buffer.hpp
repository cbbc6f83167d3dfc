// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file device_buffer.hpp
//! Owning device array (cudaMalloc), move-only, with checked copies to and from the host.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "microsched/error.hpp"

namespace microsched {

template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) : count_(count) {
    if (count_ != 0) {
      // The void** form: the T** overload is cuda_runtime.h's, which a host compiler may not see.
      MICROSCHED_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&data_), count_ * sizeof(T)));
    }
  }
  //! A device copy of `host`.
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) { upload(host); }
  ~device_buffer() {
    if (data_ != nullptr) cudaFree(data_);  // a buffer that never allocated makes no CUDA call
  }
  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  [[nodiscard]] T* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::size_t bytes() const { return count_ * sizeof(T); }

  //! Every byte set to `byte` (0xff poisons outputs before a run).
  void fill_bytes(int byte, cudaStream_t stream = nullptr) {
    if (count_ != 0) MICROSCHED_CUDA_TRY(cudaMemsetAsync(data_, byte, bytes(), stream));
  }
  //! Copies `host` (same size) to the device; returns once the copy is done.
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
    if (host.size() != count_)
      throw_invalid("host size", host.size(), "must match the device buffer");
    if (count_ == 0) return;
    MICROSCHED_CUDA_TRY(
        cudaMemcpyAsync(data_, host.data(), bytes(), cudaMemcpyHostToDevice, stream));
    MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
  }
  //! The contents, after the work queued on `stream` is done.
  [[nodiscard]] std::vector<T> to_host(cudaStream_t stream = nullptr) const {
    std::vector<T> host(count_);
    if (count_ == 0) return host;
    MICROSCHED_CUDA_TRY(
        cudaMemcpyAsync(host.data(), data_, bytes(), cudaMemcpyDeviceToHost, stream));
    MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
    return host;
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

//! Owning CUDA stream.
class cuda_stream {
 public:
  cuda_stream() { MICROSCHED_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~cuda_stream() { cudaStreamDestroy(stream_); }
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  [[nodiscard]] cudaStream_t get() const { return stream_; }
  void synchronize() const { MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_{};
};

}  // namespace microsched
