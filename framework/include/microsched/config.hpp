// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file config.hpp
//! Portability macros: pure functions are callable from host tests and device code alike.

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

inline constexpr int warp_size = 32;
inline constexpr unsigned full_mask = 0xffffffffu;

}  // namespace microsched
