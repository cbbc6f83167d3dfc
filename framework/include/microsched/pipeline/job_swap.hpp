// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file job_swap.hpp
//! Job swapping for an irregular reference A[P[tid]] (zhang2011 §4.1): jobs are put into
//! categories by the memory segment of A they reference; each category fills
//! floor(|C_i| / warp) buckets (one segment per warp), and the residuals are packed greedily:
//! the largest residual set opens a bucket that the smallest ones fill. Needs no data movement:
//! the kernel reads newtid = Q[tid] (or the collapsed R[tid] = P[Q[tid]]).

#include <cstddef>
#include <span>
#include <vector>

#include "microsched/pipeline/thread_mapping.hpp"

namespace microsched::pipeline {

struct job_swap_arguments {
  std::size_t element_bytes = 4;   //!< bytes of one element of A
  std::size_t segment_bytes = 32;  //!< bytes of one memory transaction (a sector on Hopper)
  int warp = warp_size;
};

//! Mapping Q (`source`: thread t does job Q[t]) for the reference A[refs[job]].
//! Throws std::invalid_argument for zero sizes, a segment smaller than an element, or warp < 1.
[[nodiscard]] std::vector<index_t> job_swap(std::span<const index_t> refs,
                                            const job_swap_arguments& args = {});

}  // namespace microsched::pipeline
