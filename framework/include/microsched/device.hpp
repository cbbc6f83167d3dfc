// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file device.hpp
//! Facts about the current CUDA device that schedules are sized from (never hard-coded).

#include <cstddef>
#include <string>

namespace microsched {

//! Exit status of every microsched program (samples, benchmarks, the sweep tool, tests) that finds
//! no usable CUDA GPU: 77, the "skipped" status of automake and of ctest's SKIP_RETURN_CODE, so a
//! script or CI job can tell "nothing ran here" from success (0) and from failure.
inline constexpr int no_gpu_exit_code = 77;

struct device_info {
  int ordinal = 0;
  std::string name;
  int sm_count = 0;
  int compute_major = 0;
  int compute_minor = 0;
  int max_threads_per_sm = 0;
  std::size_t shared_per_block_optin = 0;  //!< bytes a block may use after opting in
  std::size_t shared_per_sm = 0;
  std::size_t shared_reserved_per_block = 0;  //!< bytes of an SM's shared memory each block takes
  //! 0 from current_device(): the clock queries cost a millisecond, more than a first call may
  //! spend; with_clocks() fills them for a program that prints them.
  int clock_khz = 0;
  int memory_clock_khz = 0;
};

//! Number of usable CUDA devices; 0 where there is no GPU or no working driver (never throws).
[[nodiscard]] int cuda_device_count() noexcept;

//! Why no GPU can be used, in words: no NVIDIA driver installed, a driver too old for this
//! program's CUDA runtime (both versions named), a driver with no device, or CUDA's own message.
//! Empty when a device is usable.
[[nodiscard]] std::string no_device_reason();

//! The current device's properties. Throws no_device_error when no GPU can be used.
[[nodiscard]] device_info current_device();

//! SM count of the current device (a cheap attribute query). Throws no_device_error without GPU.
[[nodiscard]] int current_sm_count();

//! `info` with its clocks queried.
[[nodiscard]] device_info with_clocks(device_info info);

//! One line a program can print: "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 1980 MHz)".
[[nodiscard]] std::string describe(const device_info& info);

}  // namespace microsched
