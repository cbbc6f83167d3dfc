// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file multi_run.hpp
//! The handle of one asynchronous multi-GPU run: wait() returns once every slot's claims have
//! been enqueued and its stream has drained, and rethrows the first error of any slot; claims()
//! then says which units of layout() each slot ran (where its outputs are, for a per-GPU output
//! layout; copy_claimed gathers them).

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
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

//! When one slot of a run worked, in milliseconds since run() was called (host clock): its first
//! claim enqueued, its last claim finished. Slots that finish far apart mean the claims were too
//! coarse for the work; late starts mean the host was slow to begin. -1: not reached.
struct slot_timing {
  double enqueued_ms = -1;
  double finished_ms = -1;
};

namespace detail {
//! A slot's timing, stamped by the thread that runs its claims.
class slot_stamps {
 public:
  using clock = std::chrono::steady_clock;
  explicit slot_stamps(clock::time_point start) : start_(start) {}
  void enqueued() { timing_.enqueued_ms = since_start(); }
  void finished() { timing_.finished_ms = since_start(); }
  [[nodiscard]] const slot_timing& timing() const { return timing_; }

 private:
  [[nodiscard]] double since_start() const {
    return std::chrono::duration<double, std::milli>(clock::now() - start_).count();
  }
  clock::time_point start_;
  slot_timing timing_;
};

//! What the host threads of one run share with its handle.
struct run_state {
  explicit run_state(std::size_t slots)
      : claims(slots), errors(slots), stamps(slots, slot_stamps(slot_stamps::clock::now())) {}
  ~run_state() { join(); }
  run_state(const run_state&) = delete;
  run_state& operator=(const run_state&) = delete;

  //! Returns once every slot's claim loop has ended, yielding meanwhile (as a CUDA synchronize
  //! spins), so the caller resumes within microseconds of the last one.
  void join() const {
    while (loops.load(std::memory_order_acquire) > 0) std::this_thread::yield();
  }
  //! A slot's claim loop has ended (its worker's last act on this run).
  void loop_ended() { loops.fetch_sub(1, std::memory_order_acq_rel); }

  std::atomic<int> loops{0};                       //!< claim loops still running; none for one slot
  std::vector<std::vector<claimed_range>> claims;  //!< (slot) -> its claims, in order
  claim_layout layout;                             //!< what a claim's units are
  std::vector<std::exception_ptr> errors;          //!< (slot) -> what its loop threw
  std::vector<std::pair<int, cudaStream_t>> streams;  //!< (slot) -> (device, stream)
  std::vector<slot_stamps> stamps;                    //!< (slot) -> when it worked
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
    for (detail::slot_stamps& s : state_->stamps) {  // a slot without a thread: seen here
      if (s.timing().enqueued_ms >= 0 && s.timing().finished_ms < 0) s.finished();
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

  //! (slot) -> when it enqueued its first claim and when its last finished; complete once wait()
  //! has returned. On the one-GPU path `finished_ms` is when wait() saw the stream drained.
  [[nodiscard]] std::vector<slot_timing> timeline() const {
    std::vector<slot_timing> out;
    if (state_) {
      for (const detail::slot_stamps& s : state_->stamps) out.push_back(s.timing());
    }
    return out;
  }

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
