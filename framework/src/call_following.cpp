// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/call_following.hpp"

#include <cuda.h>

#include <chrono>
#include <new>
#include <system_error>

#include "microsched/error.hpp"
#include "microsched/schedule/calibration_state.hpp"

namespace microsched::detail {

namespace {
constexpr std::size_t page_bytes = 4096;

//! A driver function through the runtime's entry points (the library does not link libcuda);
//! nullptr where the driver has none.
template <class Function>
Function driver_entry(const char* name) {
  void* f = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &f, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<Function>(f);
}
static_assert(sizeof(signal_slot) * signal_layout::most_slots <= page_bytes);
}  // namespace

signal_memory::~signal_memory() {
  if (pending_.valid()) pending_.wait();  // the registering thread writes page_
  if (page_ == nullptr) return;
  (void)cudaHostUnregister(page_);  // no throw from a destructor
  ::operator delete (page_, std::align_val_t{page_bytes});
}

void signal_memory::allocate() {
  void* page = ::operator new (page_bytes, std::align_val_t{page_bytes});
  host_ = new (page) signal_slot[signal_layout::most_slots]{};
  if (const cudaError_t e = cudaHostRegister(page, page_bytes, cudaHostRegisterMapped);
      e != cudaSuccess) {
    ::operator delete (page, std::align_val_t{page_bytes});
    host_ = nullptr;
    MICROSCHED_CUDA_TRY(e);
  }
  page_ = page;
  void* device = nullptr;
  MICROSCHED_CUDA_TRY(cudaHostGetDevicePointer(&device, page, 0));
  device_ = static_cast<signal_slot*>(device);
}

void signal_memory::prepare_async(std::function<void()> then) {
  // pending_ first: host_ is the registering thread's until its future is read.
  if (pending_.valid() || host_ != nullptr) return;
  // The thread works in the caller's context, which a driver-API program may have made its own;
  // with none current yet (no launch on this thread so far), in the device's primary context,
  // which the caller's first launch takes.
  const auto get = driver_entry<CUresult (*)(CUcontext*)>("cuCtxGetCurrent");
  const auto set = driver_entry<CUresult (*)(CUcontext)>("cuCtxSetCurrent");
  CUcontext context = nullptr;
  const bool current =
      get != nullptr && set != nullptr && get(&context) == CUDA_SUCCESS && context != nullptr;
  int device = 0;
  if (!current) MICROSCHED_CUDA_TRY(cudaGetDevice(&device));
  try {
    pending_ = std::async(
        std::launch::async, [this, set, context, current, device, then = std::move(then)] {
          // A new thread starts in no context; where it cannot enter one, host_ stays empty and
          // the caller registers the page at its first signalled call.
          if (current ? set(context) != CUDA_SUCCESS : cudaSetDevice(device) != cudaSuccess) {
            return;
          }
          allocate();
          if (then) then();
        });
  } catch (const std::system_error&) {
    // No thread to be had: the page registers at the first signalled call, on the caller's.
  }
}

bool signal_memory::ready() {
  if (pending_.valid()) {
    if (pending_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return false;
    pending_.get();  // rethrows a failed registration
  }
  return true;
}

signal_slot* signal_memory::host() {
  if (host_ == nullptr) allocate();
  return host_;
}

signal_slot* signal_memory::device() {
  if (host_ == nullptr) allocate();
  return device_;
}

call_following::~call_following() {
  if (start_ != nullptr) (void)cudaEventDestroy(start_);
  if (stop_ != nullptr) (void)cudaEventDestroy(stop_);
}

void call_following::start(int size_class, int budgeted, const std::function<void()>& warm) {
  if (!failed_.empty()) return;  // for good
  rule_ = std::make_unique<work_follower>();
  memory_.prepare_async(warm);
  size_class_ = size_class;
  budgeted_ = budgeted;
  prepared_ = false;  // a larger size class needs a larger queue: its first budgeted call prepares
  pending_ = false;
}

void call_following::stop(const char* why) {
  if (rule_ != nullptr && rule_->followed() > 0) {
    ended_class_ = size_class_;
    ended_ = rule_->report() + ", then " + why;
  }
  rule_.reset();
  size_class_ = -1;
  pending_ = false;
}

void call_following::collect() {
  if (!pending_ || rule_ == nullptr) return;
  if (!last_budgeted_) {
    const call_signal signal = read_signal(memory_.host(), layout_, tag_);
    if (!signal.complete) return;  // in flight, or the caller never waited: the next one tells
    rule_->on_direct(signal);
    pending_ = false;
    return;
  }
  const cudaError_t done = cudaEventQuery(stop_);
  if (done == cudaErrorNotReady) return;
  MICROSCHED_CUDA_TRY(done);
  rule_->on_budgeted(elapsed_run_ms(start_, stop_));
  pending_ = false;
}

void call_following::fail(const char* why) {
  failed_ = why;
  rule_.reset();
  size_class_ = -1;
  pending_ = false;
}

void call_following::record_start(cudaStream_t stream) {
  if (start_ == nullptr) {
    MICROSCHED_CUDA_TRY(cudaEventCreate(&start_));
    MICROSCHED_CUDA_TRY(cudaEventCreate(&stop_));
  }
  MICROSCHED_CUDA_TRY(cudaEventRecord(start_, stream));
}

void call_following::record_stop(cudaStream_t stream) {
  MICROSCHED_CUDA_TRY(cudaEventRecord(stop_, stream));
}

std::string call_following::report(int size_class) const {
  if (rule_ != nullptr && size_class == size_class_) return rule_->report();
  if (!failed_.empty()) return "following stopped: " + failed_;
  return size_class == ended_class_ ? ended_ : "";
}

}  // namespace microsched::detail
