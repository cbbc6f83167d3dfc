// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file cuda_memory.hpp
//! Owning buffers for the pipeline's staging: pinned host memory (so copies are asynchronous);
//! device memory is microsched::device_buffer. Move-only RAII; sizes in elements.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <utility>

#include "microsched/device_buffer.hpp"
#include "microsched/error.hpp"

namespace microsched::pipeline {

template <class T>
class pinned_buffer {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t n) : size_(n) {
    if (n > 0) MICROSCHED_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&data_), n * sizeof(T)));
  }
  ~pinned_buffer() {
    if (data_) cudaFreeHost(data_);
  }
  pinned_buffer(pinned_buffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  [[nodiscard]] T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  [[nodiscard]] std::span<T> span() const noexcept { return {data_, size_}; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

//! Device memory: the project's owning buffer.
using microsched::device_buffer;

}  // namespace microsched::pipeline
