// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file metrics.hpp
//! The divergence model's two cost estimates (divergence-metrics paper, §IV-B), pure host
//! functions of the BBVs, the region latencies and a thread order.
//!
//! An order is a permutation: thread slot s (in launch order) works on item order[s]. Slots are
//! cut into warps of 32 and blocks of `threads_per_block`; a warp pays, for every region, its
//! latency times the largest count of its threads (eqs. 2, 3), since lanes that finish early wait
//! for the others; a block costs the sum of its warps (eq. 4). Branches inside a loop are charged
//! the iterations in which any thread takes them (bbv_matrix::loop_of).
//! - BBV-weighted: the sum of all blocks over the SM count (eq. 5), a perfectly balanced GPU.
//! - BBV-weighted-scheduled: blocks are handed in launch order to the SMs, blocks_per_sm at a
//!   time (the real SM count and occupancy; the first wave round robin, later blocks to the SM
//!   that frees a place first), and each SM shares its throughput among its resident warps. The
//!   estimate is the time the last SM finishes: uneven blocks leave a tail that eq. 5 misses.
//!   Latencies are measured on a full GPU, so a warp at full occupancy advances one latency unit
//!   per cycle; with fewer warps resident it runs faster. The SM's throughput saturates with the
//!   warps it holds, as latency hiding does: with k of `full` warps resident a warp runs
//!   full (1 + a) / (k + full a) times faster, `a` chosen so that one block's warps run
//!   `lone_block_speedup` times faster: how much faster a block runs alone on an SM than on a
//!   full GPU, which lone_block_speedup (latency.hpp) measures (a warp is bound by its own
//!   latencies, and how soon depends on the kernel's instruction-level parallelism). Expressed
//!   in eq. 5's units (the makespan times the warps an SM holds at full occupancy), so a balanced
//!   launch gets the same value from both.
//! Neither predicts absolute time: both are in latency units (cycles when the latencies are);
//! the ratio of two orders' estimates predicts the ratio of their kernel times.

#include <cstdint>
#include <span>
#include <vector>

#include "microsched/model/bbv.hpp"

namespace microsched::model {

//! The launch and the GPU the estimate is for.
struct gpu_shape {
  int sm_count = 0;           //!< streaming multiprocessors (query the device, never hard-code)
  int blocks_per_sm = 1;      //!< occupancy of the kernel at threads_per_block
  int threads_per_block = 0;  //!< a multiple of 32
  //! speed of a block alone on an SM over its speed on a full GPU (>= 1; measured per kernel)
  double lone_block_speedup = 1.0;
};

//! Throws std::invalid_argument naming the first value that is not positive, or a block size
//! that is not a multiple of 32.
void validate(const gpu_shape& shape);

//! Throws std::invalid_argument unless `order` is a permutation of [0, items).
void validate_order(std::span<const std::uint32_t> order, std::size_t items);

//! The identity order (thread t works on item t, the original launch).
[[nodiscard]] std::vector<std::uint32_t> identity_order(std::size_t items);

//! How many times each warp runs each region, warp-major (warp * regions + region): the largest
//! count among its threads (eq. 2), or for a branch inside a loop (bbv_matrix::loop_of) the
//! expected number of iterations in which at least one thread takes it. An empty `order` means
//! identity.
[[nodiscard]] std::vector<double> warp_counts(const bbv_matrix& bbv,
                                              std::span<const std::uint32_t> order);

//! Cost of each warp of the launch, in launch order (eqs. 2, 3): latency times warp_counts.
//! An empty `order` means identity.
[[nodiscard]] std::vector<double> warp_costs(const bbv_matrix& bbv, std::span<const double> latency,
                                             std::span<const std::uint32_t> order);

//! Cost of each block of the launch, in block order (eq. 4). An empty `order` means identity.
[[nodiscard]] std::vector<double> block_costs(const bbv_matrix& bbv,
                                              std::span<const double> latency,
                                              std::span<const std::uint32_t> order,
                                              int threads_per_block);

//! BBV-weighted estimate (eq. 5). An empty `order` means identity.
[[nodiscard]] double bbv_weighted(const bbv_matrix& bbv, std::span<const double> latency,
                                  std::span<const std::uint32_t> order, const gpu_shape& shape);

//! BBV-weighted-scheduled estimate (see above). An empty `order` means identity.
[[nodiscard]] double bbv_weighted_scheduled(const bbv_matrix& bbv, std::span<const double> latency,
                                            std::span<const std::uint32_t> order,
                                            const gpu_shape& shape);

//! Makespan of blocks of the given costs, handed in order to the first free of `places` places
//! (the paper's Figure 5, every block at a fixed speed).
[[nodiscard]] double round_robin_makespan(std::span<const double> costs, int places);

//! Makespan of the SM simulation behind bbv_weighted_scheduled, in cycles of a warp at full
//! occupancy: `costs` per warp in launch order, warps_per_block consecutive warps per block.
[[nodiscard]] double simulate_sms(std::span<const double> costs, int warps_per_block,
                                  const gpu_shape& shape);

}  // namespace microsched::model
