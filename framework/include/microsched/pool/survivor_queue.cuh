// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file survivor_queue.cuh
//! The budgeted strategy's queue of survivors: the tasks still running when the direct pass's
//! budget ran out, saved (context and id) in the order they arrive, for the persistent warps to
//! resume. The host owner allocates it on first use and grows it for larger runs; kernels
//! receive the trivially copyable survivor_queue_ref by value.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "microsched/config.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/error.hpp"

namespace microsched {

//! One saved task: its context after the budget's steps and its id.
template <class Context>
struct survivor_entry {
  Context context;
  task_id task;
};

//! Device view of the queue: `capacity` entries, the number saved so far in `*count` (it may run
//! past the capacity: survivors that find no room are not saved), and the other launch's count,
//! which the direct pass zeroes for the run after it.
template <class Context>
struct survivor_queue_ref {
  survivor_entry<Context>* entries = nullptr;
  unsigned long long capacity = 0;
  unsigned long long* count = nullptr;
  unsigned long long* next_count = nullptr;
};

//! Host owner. Runs of one stream alternate two counts, each zeroed by the run before it (as
//! global_task_pool's counters are), so no memset runs between launches.
template <class Context>
class survivor_queue {
 public:
  survivor_queue() = default;

  //! Room for at least `capacity` entries; reallocates (which waits for the device) when the
  //! current room is smaller. Throws std::invalid_argument, naming the bytes, when the device
  //! has not that much memory free (the automatic schedule then drops the candidate).
  void reserve(std::uint64_t capacity, cudaStream_t stream) {
    if (counts_.size() == 0) {
      counts_ = device_buffer<unsigned long long>(2);
      counts_.fill_bytes(0, stream);
    }
    if (entries_.size() >= capacity) return;
    entries_ = device_buffer<survivor_entry<Context>>();  // frees first: peak memory stays low
    try {
      entries_ = device_buffer<survivor_entry<Context>>(static_cast<std::size_t>(capacity));
    } catch (const cuda_error& e) {
      throw std::invalid_argument(
          "strategy budgeted: no room for " + std::to_string(capacity) + " survivor entries (" +
          std::to_string(capacity * sizeof(survivor_entry<Context>)) + " bytes): " + e.what());
    }
  }

  //! Whether reserve(capacity) would allocate.
  [[nodiscard]] bool needs(std::uint64_t capacity) const {
    return counts_.size() == 0 || entries_.size() < capacity;
  }
  //! Buffers another queue reserved ahead, on another thread, its counts already zero: its counts
  //! where this queue has none, its entries where they are more (this queue's go to `staged`).
  void adopt(survivor_queue&& staged) {
    if (counts_.size() == 0) counts_ = std::move(staged.counts_);
    if (staged.entries_.size() > entries_.size()) std::swap(entries_, staged.entries_);
  }

  //! The view for the next run (reserve() first).
  [[nodiscard]] survivor_queue_ref<Context> ref() const {
    return {entries_.data(), entries_.size(), counts_.data() + turn_, counts_.data() + (1 - turn_)};
  }
  //! That run is enqueued: the next one takes the other count.
  void launched() { turn_ = 1 - turn_; }

 private:
  device_buffer<survivor_entry<Context>> entries_;
  device_buffer<unsigned long long> counts_;
  int turn_ = 0;
};

}  // namespace microsched
