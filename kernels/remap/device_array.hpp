// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file device_array.hpp
//! The remap tests, benchmarks and samples use the project's owning device buffer.

#include "microsched/device_buffer.hpp"

namespace microsched::remap_kernels {

template <class T>
using device_array = microsched::device_buffer<T>;

}  // namespace microsched::remap_kernels
