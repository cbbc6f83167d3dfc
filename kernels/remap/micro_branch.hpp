// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file micro_branch.hpp
//! lin2018 §4.2 micro-benchmark: a compute-bound branch with 2, 4 or 8 paths (1, 2 or 3 nested
//! if-else levels) whose path comes from the data. Paths are permutations of the same FMA
//! sequence, so a divergence-free run costs the same whatever the path, and a warp that holds
//! k paths costs k times as much.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "microsched/remap/cfe_counter.hpp"
#include "remap/remap_variant.hpp"

namespace microsched::remap_kernels {

struct micro_config {
  int paths = 2;            //!< 2, 4 or 8
  int block_threads = 256;  //!< 256 or 1024
  int neighbouring = 16;    //!< DGI's N: 16 (4 and 64 compiled for 4 paths, 256 threads)
  int work = 256;           //!< loop iterations per path (8 dependent FMAs each)
  remap_variant variant = remap_variant::original;
};

//! True when this configuration was compiled.
[[nodiscard]] bool micro_supported(const micro_config& config);

//! out[i] = path_{path[i]}(prologue(operand[i])) for i < n. With `cfe` non-null the counting
//! kernel runs and adds to *cfe (one step per loop iteration of a path). Throws
//! std::invalid_argument naming the value for a configuration that was not compiled.
void launch_micro_branch(const micro_config& config, const float* operand, const std::uint8_t* path,
                         float* out, int n, remap::cfe_totals* cfe, cudaStream_t stream);

}  // namespace microsched::remap_kernels
