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
    if (count_ != 0) MICROSCHED_CUDA_TRY(cudaMalloc(&data_, count_ * sizeof(T)));
  }
  ~device_buffer() { cudaFree(data_); }
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

  //! Every byte set to `byte` (0xff poisons outputs before a run).
  void fill_bytes(int byte, cudaStream_t stream) {
    MICROSCHED_CUDA_TRY(cudaMemsetAsync(data_, byte, count_ * sizeof(T), stream));
  }
  [[nodiscard]] std::vector<T> to_host(cudaStream_t stream) const {
    std::vector<T> host(count_);
    MICROSCHED_CUDA_TRY(cudaMemcpyAsync(host.data(), data_, count_ * sizeof(T),
                                        cudaMemcpyDeviceToHost, stream));
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
