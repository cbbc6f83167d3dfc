// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file multi_run.hpp
//! The handle of one asynchronous multi-GPU run: wait() returns once every slot's claims have
//! been enqueued and its stream has drained, and rethrows the first error of any slot; claims()
//! then says which units of layout() each slot ran (where its outputs are, for a per-GPU output
//! layout; copy_claimed gathers them).

#include <cuda_runtime_api.h>

#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "microsched/error.hpp"
#include "microsched/multi_gpu/claim_layout.hpp"
#include "microsched/multi_gpu/claim_plan.hpp"
#include "microsched/multi_gpu/device_slots.hpp"

namespace microsched::multi_gpu {

namespace detail {
//! What the host threads of one run share with its handle.
struct run_state {
  explicit run_state(std::size_t slots) : claims(slots), errors(slots) {}
  ~run_state() { join(); }
  run_state(const run_state&) = delete;
  run_state& operator=(const run_state&) = delete;

  void join() {
    for (std::thread& t : threads) {
      if (t.joinable()) t.join();
    }
  }

  std::vector<std::thread> threads;                //!< (slot) -> its claim loop; none for one slot
  std::vector<std::vector<claimed_range>> claims;  //!< (slot) -> its claims, in order
  claim_layout layout;                             //!< what a claim's units are
  std::vector<std::exception_ptr> errors;          //!< (slot) -> what its loop threw
  std::vector<std::pair<int, cudaStream_t>> streams;  //!< (slot) -> (device, stream)
};
}  // namespace detail

class multi_run {
 public:
  multi_run() = default;
  explicit multi_run(std::shared_ptr<detail::run_state> state) : state_(std::move(state)) {}

  //! Blocks until every slot has enqueued its last claim and its stream has drained; rethrows
  //! the first slot's error. Calling it again returns at once.
  void wait() {
    if (!state_ || waited_) return;
    state_->join();
    waited_ = true;
    for (const auto& [device, stream] : state_->streams) {
      const device_guard on(device);
      MICROSCHED_CUDA_TRY(cudaStreamSynchronize(stream));
    }
    for (const std::exception_ptr& e : state_->errors) {
      if (e) std::rethrow_exception(e);
    }
  }

  //! (slot) -> the claims it ran, ranges of units of layout(), in claim order; complete once
  //! wait() has returned.
  [[nodiscard]] const std::vector<std::vector<claimed_range>>& claims() const {
    static const std::vector<std::vector<claimed_range>> none;
    return state_ ? state_->claims : none;
  }

  //! What the units of claims() are: tasks (contiguous), or residues of interleaved granules.
  [[nodiscard]] claim_layout layout() const { return state_ ? state_->layout : claim_layout{}; }

  //! The tasks `slot` ran; complete once wait() has returned.
  [[nodiscard]] task_id tasks(int slot) const {
    task_id n = 0;
    for (const claimed_range& c : claims().at(static_cast<std::size_t>(slot)))
      n += state_->layout.tasks(c);
    return n;
  }

 private:
  std::shared_ptr<detail::run_state> state_;
  bool waited_ = false;
};

}  // namespace microsched::multi_gpu
