// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file program_main.hpp
//! What every microsched program shares (samples, benchmarks, the sweep tool): the exit codes,
//! the GPU check that comes after the arguments are validated, and main's error handling (the
//! only place that prints an exception and chooses an exit code). Header-only: needs the core
//! library only, so the benchmark programs include it too.
//!
//! Exit codes, the same in every program:
//!   0  success
//!   1  a run failed (a check against the baseline, a CUDA error, a file that cannot be written)
//!   2  bad arguments (the message names the option and the value)
//!  77  no usable CUDA GPU (microsched::no_gpu_exit_code; the message says why: no driver, a
//!      driver too old for this program's CUDA runtime, or no device)

#include <cstdio>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>

#include "microsched/device.hpp"
#include "microsched/error.hpp"

namespace microsched::programs {

inline constexpr int failure_exit_code = 1;
inline constexpr int bad_arguments_exit_code = 2;
using microsched::no_gpu_exit_code;

//! Throws microsched::no_device_error, saying why, unless a CUDA GPU is usable. A program calls
//! it once every argument has been checked and before any device work.
inline void require_gpu() {
  if (std::string why = no_device_reason(); !why.empty()) throw no_device_error(why);
}

//! Runs `body`, turning an exception into one line on stderr and the exit code above.
//! `program` prefixes the message ("julia: error: ...").
inline int run_main(const char* program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const no_device_error& e) {
    std::fprintf(stderr, "%s: no GPU: %s; nothing was run (exit %d)\n", program, e.what(),
                 no_gpu_exit_code);
    return no_gpu_exit_code;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return bad_arguments_exit_code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return failure_exit_code;
  }
}

}  // namespace microsched::programs
