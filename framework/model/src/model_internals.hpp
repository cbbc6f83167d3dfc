// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
// Helpers shared by the model library's sources; not installed, not part of the API.

#include <cstdint>
#include <span>
#include <vector>

#include "microsched/model/bbv.hpp"

namespace microsched::model::detail {

//! Solves the symmetric positive semi-definite system a x = rhs (size k, a row-major) by
//! Gauss-Jordan with partial pivoting; a pivot below 1e-12 of the largest diagonal (a column that
//! is a combination of others, or empty) gets x = 0.
[[nodiscard]] std::vector<double> solve_symmetric(std::vector<double> a, std::vector<double> rhs,
                                                  std::size_t k);

//! How many times each warp runs every region, warp-major: slot s of the launch runs item
//! order[s] (an empty order: item s), warps of 32 consecutive slots. A region outside a loop
//! counts its threads' largest count (eq. 2); a branch inside a loop (bbv.loop_of) the expected
//! number of the loop's iterations in which some thread takes it. No checks: the callers
//! validate.
[[nodiscard]] std::vector<double> warp_counts(const bbv_matrix& bbv,
                                              std::span<const std::uint32_t> order);

}  // namespace microsched::model::detail
