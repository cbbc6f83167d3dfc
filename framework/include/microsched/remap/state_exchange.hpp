// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file state_exchange.hpp
//! Moves values a thread computed before a remap to the thread that takes over its data, through
//! shared memory. Reference redirection moves only ids: data still in memory is simply read at
//! the new id, but private state (registers) must travel with it.

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "microsched/config.hpp"

namespace microsched::remap {

//! Block-wide exchange of a trivially copyable T by native id (the temp_storage idiom of CUB).
//!
//! T is stored as 32-bit words, one row per word (structure of arrays), so publishing and
//! fetching are free of bank conflicts whatever sizeof(T) is.
//! Two ways to use it:
//!  - publish() before the remap and fetch() after it: the remap's own barrier orders them, so
//!    the state costs no extra barrier (a remap that returns remapped == false also passed one);
//!  - exchange(): publish, barrier, fetch.
//! Before the temp_storage is reused the block must pass a __syncthreads().
//!
//! @tparam BlockThreads threads per block
//! @tparam T            the private state (trivially copyable)
template <int BlockThreads, class T>
class block_state_exchange {
  static_assert(BlockThreads >= 1 && BlockThreads <= 1024,
                "block_state_exchange: BlockThreads must be in 1..1024 (one CUDA block)");
  static_assert(std::is_trivially_copyable_v<T>,
                "block_state_exchange: T must be trivially copyable (it is copied as words)");

 public:
  //! 32-bit words per value.
  static constexpr int words =
      static_cast<int>((sizeof(T) + sizeof(unsigned) - 1) / sizeof(unsigned));

  struct temp_storage {
    unsigned rows[words][BlockThreads];  // (word, native id)
  };
  //! Shared-memory cost, known at compile time: 4 * ceil(sizeof(T) / 4) * BlockThreads bytes.
  static constexpr std::size_t shared_bytes = sizeof(temp_storage);

  MICROSCHED_DEVICE block_state_exchange(temp_storage& storage, unsigned linear_tid)
      : storage_(storage), tid_(linear_tid) {}

  //! Stores this thread's value under its native id. No barrier.
  MICROSCHED_DEVICE void publish(const T& value) {
    unsigned buffer[words] = {};
    std::memcpy(buffer, &value, sizeof(T));
#pragma unroll
    for (int w = 0; w < words; ++w) storage_.rows[w][tid_] = buffer[w];
  }

  //! The value published under native id `id`; valid after a block barrier that follows every
  //! publish (for example the one inside a remap).
  [[nodiscard]] MICROSCHED_DEVICE T fetch(unsigned id) const {
    unsigned buffer[words];
#pragma unroll
    for (int w = 0; w < words; ++w) buffer[w] = storage_.rows[w][id];
    T value;
    std::memcpy(&value, buffer, sizeof(T));
    return value;
  }

  //! publish(value), block barrier, fetch(id). Every thread of the block must call it.
  [[nodiscard]] MICROSCHED_DEVICE T exchange(const T& value, unsigned id) {
    publish(value);
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
    return fetch(id);
  }

 private:
  temp_storage& storage_;
  unsigned tid_;
};

}  // namespace microsched::remap
