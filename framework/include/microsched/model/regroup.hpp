// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file regroup.hpp
//! Thread regrouping from BBVs (divergence-metrics paper, §V): each algorithm returns an order
//! (slot s of the launch works on item order[s], a permutation) whose consecutive `groupsize`
//! slots form a group of threads that behave alike. groupsize is 32 or a multiple, so no warp
//! straddles two groups.
//! - Sorting: items in lexicographic order of their BBVs.
//! - Greedy (Algorithm 1): start from one group per item, repeatedly merge the two groups of
//!   largest gain (eq. 10); a merge that reaches groupsize emits the first groupsize items as a
//!   finished group and keeps the rest. The paper compares all pairs (O(n^2) edges); here the
//!   candidate pairs are neighbours in a list ordered by thread latency (eq. 11) and then BBV,
//!   kept in a priority queue, so a regrouping costs O(n log n) merges. Whole groups of
//!   identical BBVs are cut first (their merges cost nothing); only the rest enters the queue.
//! - Greedy-Max (Algorithm 2): groups are built one after the other, each seeded with the
//!   remaining item of largest latency, then filled with items identical to a member, else with
//!   the item of largest gain among the next `window` remaining items in latency order (the paper
//!   scans all remaining items). Groups come out in descending latency: under round-robin block
//!   scheduling, long blocks start first and the tail is short.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "microsched/model/bbv.hpp"

namespace microsched::model {

enum class regroup_method { original, sorting, greedy, greedy_max };

//! "original", "sorting", "greedy", "greedy_max".
[[nodiscard]] std::string_view to_string(regroup_method method);

struct regroup_options {
  int groupsize = 32;  //!< threads per group: a positive multiple of 32
  int window = 32;     //!< Greedy-Max: candidates scanned per added item (>= 1)
};

//! Throws std::invalid_argument naming a groupsize that is not a positive multiple of 32 or a
//! window < 1.
void validate(const regroup_options& options);

//! Lexicographic order of the BBVs (stable: equal BBVs keep their item order).
[[nodiscard]] std::vector<std::uint32_t> sorting_order(const bbv_matrix& bbv);

//! Greedy regrouping (Algorithm 1 with neighbour candidates). Needs the region latencies.
[[nodiscard]] std::vector<std::uint32_t> greedy_order(const bbv_matrix& bbv,
                                                      std::span<const double> latency,
                                                      const regroup_options& options = {});

//! Greedy-Max regrouping (Algorithm 2 with a candidate window).
[[nodiscard]] std::vector<std::uint32_t> greedy_max_order(const bbv_matrix& bbv,
                                                          std::span<const double> latency,
                                                          const regroup_options& options = {});

//! Any of the above; original is the identity. Throws on bad input before any work.
[[nodiscard]] std::vector<std::uint32_t> regroup(regroup_method method, const bbv_matrix& bbv,
                                                 std::span<const double> latency,
                                                 const regroup_options& options = {});

namespace detail {
//! Items in descending thread latency, ties in lexicographic BBV order, then by item.
[[nodiscard]] std::vector<std::uint32_t> latency_order(const bbv_matrix& bbv,
                                                       std::span<const double> latency);
}  // namespace detail

}  // namespace microsched::model
