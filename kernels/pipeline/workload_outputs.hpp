// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file workload_outputs.hpp
//! Output handling shared by the pipeline workloads: poison before a run, read back bit for bit.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "microsched/error.hpp"

namespace microsched::pipeline::workloads {

//! Sets every byte of the buffers to 0xff and waits. The wait matters: the memset runs on the
//! legacy stream, which the pipeline's non-blocking streams do not wait for, so a poison still in
//! flight could overwrite a run's first results (seen on an H100: 1024 outputs of a split loop).
template <class... Buffers>
void poison_and_wait(Buffers&... buffers) {
  (buffers.fill_bytes(0xff), ...);
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
}

//! The buffers' bytes, one after another, as 32-bit words (each buffer a whole number of words),
//! once all queued work is done: outputs compared bit for bit, floats included.
template <class... Buffers>
[[nodiscard]] std::vector<std::uint32_t> output_words(const Buffers&... buffers) {
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  if (((buffers.bytes() % sizeof(std::uint32_t) != 0) || ...))
    throw std::invalid_argument("output_words: a buffer is not a whole number of 32-bit words");
  std::vector<std::uint32_t> words(((buffers.bytes() / sizeof(std::uint32_t)) + ...));
  auto* at = reinterpret_cast<unsigned char*>(words.data());
  const auto copy = [&at](const auto& buffer) {
    MICROSCHED_CUDA_TRY(cudaMemcpy(at, buffer.data(), buffer.bytes(), cudaMemcpyDeviceToHost));
    at += buffer.bytes();
  };
  (copy(buffers), ...);
  return words;
}

}  // namespace microsched::pipeline::workloads
