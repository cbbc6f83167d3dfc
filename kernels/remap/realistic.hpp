// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file realistic.hpp
//! Two realistic kernels with data-dependent branches, each compiled as the original and as a
//! remapped version that runs the same per-element code after a block-level remap:
//!
//!  - chi_square_pvalues: upper regularized incomplete gamma Q(a, x) per (a, x) pair, as in
//!    p-values of many chi-square tests. Numerical Recipes' classic split: a power series when
//!    x < a + 1, a Lentz continued fraction otherwise (fixed term counts). Two paths: HoT.
//!  - model_tree: a depth-2 decision tree over 8-feature records whose four leaves each hold a
//!    different small neural model (32 hidden units; tanh, logistic, softplus, squared ReLU).
//!    Two nested levels, four paths: DGI. The model weights live in constant memory.

#include <cuda_runtime_api.h>

#include "microsched/remap/cfe_counter.hpp"
#include "remap/remap_variant.hpp"

namespace microsched::remap_kernels {

inline constexpr int model_tree_features = 8;

//! q[i] = Q(a[i], x[i]). Variants: original, head_or_tail, head_or_tail16, data_group_index;
//! block_threads 256 or 1024 (anything else throws std::invalid_argument).
void launch_chi_square_pvalues(remap_variant variant, int block_threads, const float* a,
                               const float* x, float* q, int n, remap::cfe_totals* cfe,
                               cudaStream_t stream);

//! Uploads the four leaf models' weights (deterministic from `seed`) to constant memory.
void upload_model_tree_weights(unsigned seed);

//! out[i] = model of the leaf record i falls in, evaluated on record i
//! (records: n x model_tree_features floats, row-major). Variants: original, data_group_index;
//! block_threads 256 or 1024.
void launch_model_tree(remap_variant variant, int block_threads, const float* records, float* out,
                       int n, remap::cfe_totals* cfe, cudaStream_t stream);

}  // namespace microsched::remap_kernels
