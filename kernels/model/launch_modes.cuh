// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file launch_modes.cuh
//! One kernel template per workload, instantiated for every probe mode and with or without an
//! order: dispatch() turns a launch_request into the instantiation's compile-time arguments.

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "microsched/error.hpp"
#include "model/model_workload.hpp"

namespace microsched::model_kernels {

//! The item a thread works on; false when the thread is past the launch's end.
// example-begin item-of
template <bool Redirect>
__device__ __forceinline__ bool item_of(std::uint32_t slot, const std::uint32_t* order,
                                        std::uint32_t threads, std::uint32_t& item) {
  if (slot >= threads) return false;
  item = Redirect ? order[slot] : slot;
  return true;
}
// example-end item-of

//! Calls launch(std::integral_constant<probe_mode>, std::bool_constant<redirect>) once.
template <class Launch>
void dispatch(const launch_request& request, std::size_t items, Launch&& launch) {
  if (request.threads == 0) throw_invalid("threads", request.threads, "must be >= 1");
  if (request.order == nullptr && request.threads > items)
    throw_invalid("threads", request.threads, "exceeds the items without an order");
  using model::probe_mode;
  const auto with_mode = [&](auto redirect) {
    switch (request.mode) {
      case probe_mode::off:
        return launch(std::integral_constant<probe_mode, probe_mode::off>{}, redirect);
      case probe_mode::count:
        return launch(std::integral_constant<probe_mode, probe_mode::count>{}, redirect);
      case probe_mode::time:
        return launch(std::integral_constant<probe_mode, probe_mode::time>{}, redirect);
    }
  };
  if (request.order != nullptr) {
    with_mode(std::true_type{});
  } else {
    with_mode(std::false_type{});
  }
}

//! A workload's outputs as 32-bit words, for the byte-exact comparison of two orders.
template <class T>
[[nodiscard]] std::vector<std::uint32_t> as_words(const std::vector<T>& values) {
  static_assert(sizeof(T) % sizeof(std::uint32_t) == 0, "outputs must be whole 32-bit words");
  std::vector<std::uint32_t> words(values.size() * (sizeof(T) / sizeof(std::uint32_t)));
  std::memcpy(words.data(), values.data(), words.size() * sizeof(std::uint32_t));
  return words;
}

//! Blocks of divergent_workload::threads_per_block that fit an SM for `kernel`.
template <class Kernel>
[[nodiscard]] int resident_blocks(Kernel* kernel) {
  int blocks = 0;
  MICROSCHED_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, kernel, divergent_workload::threads_per_block, 0));
  return blocks;
}

//! Grid size for `threads` threads.
inline unsigned grid_for(std::uint32_t threads) {
  return (threads + divergent_workload::threads_per_block - 1) /
         divergent_workload::threads_per_block;
}

}  // namespace microsched::model_kernels
