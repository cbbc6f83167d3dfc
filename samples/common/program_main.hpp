// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file program_main.hpp
//! The contract every microsched program keeps (samples, benchmarks, the sweep tool, the host
//! tools; docs/exit-codes.md says it for users): its exit codes, its one error-line format, its
//! --version line, the GPU check that comes after the arguments are validated, and main's error
//! handling (the only place that prints an exception and chooses an exit code). Header-only:
//! needs the core library only, so the benchmark programs include it too.
//!
//! Exit codes, the same in every program:
//!   0  success, --help, --version
//!   1  a run failed: a CUDA error, a verification against the baseline, an output that cannot
//!      be written after all although it passed the check before the run
//!   2  bad usage or bad input, refused before any device work: an unknown option, a value out
//!      of range, an input file that is missing or corrupt, an output path that cannot be
//!      written (checked, never created, before the run)
//!  77  no usable CUDA GPU, once every argument was checked (microsched::no_gpu_exit_code; the
//!      message says why: no driver, a driver too old for this program's CUDA runtime, or no
//!      device)
//! Every failure is one line on stderr, "PROGRAM: error: WHAT", WHAT naming the option or file
//! and the offending value; the skip is "PROGRAM: no GPU: WHY; nothing was run (exit 77)".

#include <cstdio>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "microsched/device.hpp"
#include "microsched/error.hpp"
#include "microsched/version.hpp"

namespace microsched::programs {

inline constexpr int success_exit_code = 0;
inline constexpr int failure_exit_code = 1;
inline constexpr int bad_arguments_exit_code = 2;
using microsched::no_gpu_exit_code;

//! The project's version, "MAJOR.MINOR.PATCH" of CMake's project(VERSION) (version.hpp).
[[nodiscard]] inline std::string version() {
  return microsched::version_string;
}

//! What --version prints: "julia (microsched) 0.1.0".
[[nodiscard]] inline std::string version_line(std::string_view program) {
  return std::string(program) + " (microsched) " + version();
}

//! `text` on one line: a message may quote a value or a library text that holds line breaks.
[[nodiscard]] inline std::string one_line(std::string_view text) {
  std::string line(text);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

//! Prints the one error line, "PROGRAM: error: WHAT", to stderr.
inline void print_error(std::string_view program, std::string_view what) {
  std::fprintf(stderr, "%.*s: error: %s\n", static_cast<int>(program.size()), program.data(),
               one_line(what).c_str());
}

//! Prints the one line of the no-GPU skip, "PROGRAM: no GPU: WHY; nothing was run (exit 77)".
inline void print_no_gpu(std::string_view program, std::string_view why) {
  std::fprintf(stderr, "%.*s: no GPU: %s; nothing was run (exit %d)\n",
               static_cast<int>(program.size()), program.data(), one_line(why).c_str(),
               no_gpu_exit_code);
}

//! Throws microsched::no_device_error, saying why, unless a CUDA GPU is usable. A program calls
//! it once every argument has been checked and before any device work.
inline void require_gpu() {
  if (std::string why = no_device_reason(); !why.empty()) throw no_device_error(why);
}

//! Runs `body`, turning an exception into one line on stderr and the exit code above:
//! no_device_error 77, std::invalid_argument 2 (bad input), any other exception 1.
inline int run_main(const char* program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const no_device_error& e) {
    print_no_gpu(program, e.what());
    return no_gpu_exit_code;
  } catch (const std::invalid_argument& e) {
    print_error(program, e.what());
    return bad_arguments_exit_code;
  } catch (const std::exception& e) {
    print_error(program, e.what());
    return failure_exit_code;
  } catch (...) {
    print_error(program, "unknown exception");
    return failure_exit_code;
  }
}

}  // namespace microsched::programs
