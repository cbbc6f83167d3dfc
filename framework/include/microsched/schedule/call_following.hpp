// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file call_following.hpp
//! One scheduler's following of a short-call size class (work_follower.hpp): the host memory
//! its direct runs' signals land in, the events of its budgeted runs, and the launches. A
//! scheduler follows at most one size class at a time; it reads what its previous run left at
//! its next call, without waiting: a run still in flight is skipped.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>

#include "microsched/config.hpp"
#include "microsched/error.hpp"
#include "microsched/schedule/call_signal.hpp"
#include "microsched/schedule/work_follower.hpp"

namespace microsched::detail {

//! Slots in host memory that the device writes through a mapping, registered on first use: a
//! process's first cudaHostAlloc costs about a millisecond, registering a page a tenth of that.
class signal_memory {
 public:
  signal_memory() = default;
  ~signal_memory();
  signal_memory(const signal_memory&) = delete;
  signal_memory& operator=(const signal_memory&) = delete;
  [[nodiscard]] signal_slot* host();
  [[nodiscard]] signal_slot* device();
  //! Registers the page on a host thread of its own, so that no call waits for it.
  void prepare_async(std::function<void()> then);
  //! The page is registered (a registration that failed throws cuda_error here).
  [[nodiscard]] bool ready();

 private:
  void allocate();
  std::future<void> pending_;
  void* page_ = nullptr;
  signal_slot* host_ = nullptr;
  signal_slot* device_ = nullptr;
};

class call_following {
 public:
  call_following() = default;
  ~call_following();
  call_following(const call_following&) = delete;
  call_following& operator=(const call_following&) = delete;

  [[nodiscard]] bool active_for(int size_class) const {
    return rule_ != nullptr && size_class == size_class_;
  }
  //! Follows `size_class` from the next call on, with candidate `budgeted` as the budgeted form
  //! (nothing after a failure: fail()).
  void start(int size_class, int budgeted, const std::function<void()>& warm = {});
  //! Stops following (the size class calibrates again, `why`); the report keeps what it did.
  void stop(const char* why);
  [[nodiscard]] int budgeted() const { return budgeted_; }
  //! Reads what the previous run left, if it is done.
  void collect();
  [[nodiscard]] bool wants_calibration() const {
    return rule_ != nullptr && rule_->wants_calibration();
  }
  //! What the following did in `size_class`, "" where it never followed there.
  [[nodiscard]] std::string report(int size_class) const;

  //! One call: the budgeted form, timed (`prepare()` first, once), or the direct form through
  //! `signalled(slots, tag, count_steps)`, which returns the layout of the signal it launched, or
  //! through
  //! `plain()` on a quiet call (work_follower::signal_next). false, having launched nothing,
  //! where the budgeted form or the signalled one cannot launch here (std::invalid_argument): the
  //! following stops and the caller runs the call its own way.
  template <class Signalled, class Budgeted, class Plain, class Prepare>
  bool run(cudaStream_t stream, Signalled&& signalled, Budgeted&& budgeted, Plain&& plain,
           Prepare&& prepare) {
    if (rule_->budgeted_next()) {
      if (!prepared_) {
        prepare();
        prepared_ = true;
      }
      record_start(stream);
      try {
        budgeted();
      } catch (const std::invalid_argument&) {
        fail("the budgeted strategy cannot launch here");
        return false;
      }
      record_stop(stream);
      last_budgeted_ = true;
      pending_ = true;
      return true;
    }
    if (!rule_->signal_next()) {
      plain();
      pending_ = false;
      return true;
    }
    signal_slot* slots = nullptr;
    bool ready = false;
    try {
      ready = memory_.ready();
      if (ready) slots = memory_.device();
    } catch (const cuda_error&) {
      fail("no host memory for the signal could be registered");
      return false;
    }
    if (!ready) {  // still registering on its own thread: this call is not signalled
      plain();     // outside the try: its launch errors are the caller's
      pending_ = false;
      return true;
    }
    if (++tag_ == 0) tag_ = 1;  // slots start at 0: a tag of 0 would read as written
    try {
      layout_ = signalled(slots, tag_, rule_->count_next());
    } catch (const std::invalid_argument& e) {
      fail(e.what());  // launched nothing: the signalled kernel would slow the calls down
      return false;
    }
    last_budgeted_ = false;
    pending_ = true;
    return true;
  }

 private:
  //! Stops for good: the caller runs its calls its own way.
  void fail(const char* why);
  void record_start(cudaStream_t stream);
  void record_stop(cudaStream_t stream);

  std::unique_ptr<work_follower> rule_;
  int size_class_ = -1;
  int budgeted_ = -1;
  bool prepared_ = false;
  std::string failed_;  //!< why the following stopped for good
  bool pending_ = false;
  bool last_budgeted_ = false;
  std::uint32_t tag_ = 0;
  signal_layout layout_;
  signal_memory memory_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  int ended_class_ = -1;
  std::string ended_;  //!< the report of a following that stopped
};

}  // namespace microsched::detail
