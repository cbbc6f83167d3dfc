// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file config.hpp
//! Portability macros: pure functions are callable from host tests and device code alike.

// nvcc compiles C++17 unless told otherwise, and the headers use concepts: say so in one line
// instead of a screen of parse errors. (GCC 10 reports 201709 for -std=c++20; MSVC sets
// __cplusplus only under /Zc:__cplusplus, _MSVC_LANG always.)
#if defined(_MSVC_LANG) && _MSVC_LANG > __cplusplus
#define MICROSCHED_CPLUSPLUS _MSVC_LANG
#else
#define MICROSCHED_CPLUSPLUS __cplusplus
#endif
#if MICROSCHED_CPLUSPLUS <= 201703L
#error "microsched needs C++20: compile with -std=c++20 (nvcc, g++, clang++) or /std:c++20 (MSVC)"
#endif

#include <cstdint>

#if defined(__CUDACC__)
#define MICROSCHED_HD __host__ __device__ __forceinline__
#define MICROSCHED_DEVICE __device__ __forceinline__
#else
#define MICROSCHED_HD inline
#define MICROSCHED_DEVICE inline
#endif

namespace microsched {

//! Task ids are 64-bit: a launch may hold more than 2^32 tasks.
using task_id = std::uint64_t;

//! 32-bit task ids in the one-thread-per-task kernels (the direct mapping, the budgeted pass, the
//! floor, the signalled kernel): up to 2^31 tasks no id plus the grid stride can wrap.
[[nodiscard]] constexpr bool narrow_ids(task_id num_tasks) {
  return num_tasks <= task_id{1} << 31;
}

inline constexpr int warp_size = 32;
inline constexpr unsigned full_mask = 0xffffffffu;

}  // namespace microsched
