// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file reference.hpp
//! Host references and property checks for remap permutations: what the device remaps must
//! produce, written as plain loops (for the tests, and for users who want to see a remap).
//! A remap table says, for every thread t of a block, the native id of the data t processes
//! after the remap (`id[t]`) and that data's path (`path[t]`).

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "microsched/error.hpp"
#include "microsched/remap/permutation.hpp"

namespace microsched::remap {

struct remap_table {
  std::vector<unsigned> id;    //!< (thread) -> native id of its data
  std::vector<unsigned> path;  //!< (thread) -> path of that data
};

//! Stable remap: group by path in path order, each group in native-id order (what DGI yields).
[[nodiscard]] inline remap_table stable_reference(std::span<const unsigned> paths,
                                                  unsigned num_paths) {
  remap_table table;
  for (unsigned p = 0; p < num_paths; ++p) {
    for (unsigned t = 0; t < paths.size(); ++t) {
      if (paths[t] == p) {
        table.id.push_back(t);
        table.path.push_back(p);
      }
    }
  }
  if (table.id.size() != paths.size())
    throw_invalid("num_paths", num_paths, "a path is out of range");
  return table;
}

//! Head-or-Tail on the host, warp by warp in `service_order` (the order the device served the
//! warps' atomics; identity gives the canonical layout). Path 1 means cond true (head).
//! Uses the same slot arithmetic as the device. A block that takes one path is left as it is.
[[nodiscard]] inline remap_table head_or_tail_reference(std::span<const unsigned> cond,
                                                        std::span<const unsigned> service_order) {
  const auto threads = static_cast<unsigned>(cond.size());
  const unsigned warps = warps_in_block(threads);
  if (service_order.size() != warps)
    throw_invalid("service_order.size()", service_order.size(),
                  "must equal the warps of the block");
  const auto heads = static_cast<unsigned>(std::count(cond.begin(), cond.end(), 1u));
  remap_table table{std::vector<unsigned>(threads), std::vector<unsigned>(threads)};
  if (heads == 0 || heads == threads) {
    for (unsigned t = 0; t < threads; ++t) table.id[t] = t, table.path[t] = cond[t];
    return table;
  }
  unsigned counter = 0;
  for (const unsigned warp : service_order) {
    unsigned head_lanes = 0;
    const unsigned lanes = warp_lanes(threads, warp);
    for (unsigned lane = 0; lane < lanes_in_warp(threads, warp); ++lane) {
      if (cond[warp * warp_size + lane] != 0) head_lanes |= 1u << lane;
    }
    const unsigned tail_lanes = lanes & ~head_lanes;
    const unsigned tails = static_cast<unsigned>(popcount(tail_lanes));
    const unsigned ticket = counter;
    counter += hot_ticket(static_cast<unsigned>(popcount(head_lanes)), tails);
    for (unsigned lane = 0; lane < lanes_in_warp(threads, warp); ++lane) {
      const bool head = (head_lanes >> lane & 1u) != 0;
      const auto rank = static_cast<unsigned>(rank_in_mask(head ? head_lanes : tail_lanes, lane));
      table.id[hot_slot(head, ticket, rank, heads)] = warp * warp_size + lane;
    }
  }
  for (unsigned t = 0; t < threads; ++t) table.path[t] = t < heads ? 1u : 0u;
  return table;
}

//! Data Group Indexing on the host with the device's own pure functions: ballots per warp,
//! (path, piece) words, totals, target, neighbourhood search.
[[nodiscard]] inline remap_table data_group_index_reference(std::span<const unsigned> paths,
                                                            unsigned num_paths,
                                                            unsigned neighbouring) {
  const dgi_shape shape{static_cast<unsigned>(paths.size()), num_paths, neighbouring};
  if (!shape.valid_neighbouring())
    throw_invalid("neighbouring", neighbouring, "must be 4, 8, 16, 32 or 64");
  const unsigned threads = shape.block_threads;
  const unsigned pieces = shape.pieces();
  const unsigned piece = shape.piece_threads();
  std::vector<unsigned> words(std::size_t{num_paths} * pieces, 0xdeadbeefu);  // poisoned
  for (unsigned warp = 0; warp < warps_in_block(threads); ++warp) {
    for (unsigned p = 0; p < num_paths; ++p) {
      unsigned ballot = 0;
      for (unsigned lane = 0; lane < lanes_in_warp(threads, warp); ++lane) {
        if (paths[warp * warp_size + lane] == p) ballot |= 1u << lane;
      }
      for (unsigned lane = 0; lane < lanes_in_warp(threads, warp); lane += piece) {
        words[p * pieces + (warp * warp_size + lane) / piece] = dgi_piece_word(ballot, lane, piece);
      }
    }
  }
  std::vector<unsigned> totals(num_paths, 0);
  for (unsigned p = 0; p < num_paths; ++p) {
    for (unsigned q = 0; q < pieces; ++q)
      totals[p] += static_cast<unsigned>(popcount(words[p * pieces + q]));
  }
  remap_table table{std::vector<unsigned>(threads), std::vector<unsigned>(threads)};
  const bool uniform = std::find(totals.begin(), totals.end(), threads) != totals.end();
  for (unsigned t = 0; t < threads; ++t) {
    if (uniform) {
      table.id[t] = t;
      table.path[t] = paths[t];
      continue;
    }
    const dgi_target target = dgi_target_of(totals.data(), num_paths, t);
    table.id[t] = dgi_locate(&words[target.path * pieces], shape, target.rank);
    table.path[t] = target.path;
  }
  return table;
}

//! True when `id` is a permutation of 0..size-1.
[[nodiscard]] inline bool is_bijection(std::span<const unsigned> id) {
  std::vector<char> seen(id.size(), 0);
  for (const unsigned i : id) {
    if (i >= id.size() || seen[i] != 0) return false;
    seen[i] = 1;
  }
  return true;
}

//! True when every thread's path is its data's original path.
[[nodiscard]] inline bool paths_follow_data(const remap_table& table,
                                            std::span<const unsigned> paths) {
  for (std::size_t t = 0; t < table.id.size(); ++t) {
    if (table.path[t] != paths[table.id[t]]) return false;
  }
  return true;
}

//! True when, within every path, ascending threads hold ascending native ids (stable remapping).
[[nodiscard]] inline bool is_stable(const remap_table& table, unsigned num_paths) {
  std::vector<long> last(num_paths, -1);
  for (std::size_t t = 0; t < table.id.size(); ++t) {
    if (static_cast<long>(table.id[t]) <= last[table.path[t]]) return false;
    last[table.path[t]] = table.id[t];
  }
  return true;
}

//! Warps of the block whose threads do not all take one path.
[[nodiscard]] inline unsigned mixed_warps(std::span<const unsigned> path_of_thread) {
  const auto threads = static_cast<unsigned>(path_of_thread.size());
  unsigned mixed = 0;
  for (unsigned warp = 0; warp < warps_in_block(threads); ++warp) {
    const unsigned first = path_of_thread[warp * warp_size];
    for (unsigned lane = 1; lane < lanes_in_warp(threads, warp); ++lane) {
      if (path_of_thread[warp * warp_size + lane] != first) {
        ++mixed;
        break;
      }
    }
  }
  return mixed;
}

}  // namespace microsched::remap
