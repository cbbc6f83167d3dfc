// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file pool_strategy.hpp
//! Work distribution strategies (frey2012 §4.2, Table 1), the direct mapping and the automatic
//! choice among them. Device-side: no host headers; the text forms (parse_pool_strategy, to_string)
//! are declared in schedule_arguments.hpp.

namespace microsched {

enum class pool_strategy {
  //! The default: the scheduler times a short list of candidates, the direct mapping among them,
  //! on the first runs of each problem size class and keeps the fastest (schedule/calibration.hpp).
  automatic,
  //! One thread per task, run to completion, no pools: what a vanilla kernel does, in its
  //! textbook form (`if (t >= n) return;`).
  direct,
  //! A per-block pool in shared memory, statically filled with `chunk` tasks; grid = tasks /
  //! chunk.
  local,
  //! A private pool per lane, in registers, refilled from the global pool, `chunk` tasks per
  //! lane (frey2012's private pools).
  private_pools,
  //! A per-warp local pool refilled from the global pool by one atomic per grab.
  hybrid,
  //! Per-warp ranges of up to `chunk` tasks per lane from the global pool; a lane whose task
  //! ends takes the next task of the range within the deferral (pool/lane_run.hpp). Plain task
  //! programs only.
  warp_range,
  //! Block-synchronous rounds of one task per thread from the global pool, regrouped by the
  //! program's path(task) with Head-or-Tail or Data Group Indexing before they begin
  //! (driver/remapped_loop.cuh). Programs with paths only (routed_task_program).
  remapped,
  //! Two launches: the direct mapping runs every task for up to `budget` steps, and the tasks
  //! still running then (the survivors) are saved, compacted, to a queue; persistent warps with
  //! private pools of `chunk` survivors per lane run them to their end
  //! (driver/budgeted_kernel.cuh). Short tasks end
  //! in full warps at vanilla's cost; only the long tail pays for pools. Plain task programs
  //! with a trivially copyable context only.
  budgeted,
  //! The direct mapping in the other form vanilla kernels take: a grid-stride loop over 64-bit
  //! ids (driver/direct_kernel.cuh). The code generator treats the two forms differently, by a
  //! few per cent either way, so the automatic schedule times both.
  strided,
};

//! Steps a warp_range lane runs between two refills within the deferral: its kernels are
//! compiled for these two periods, the default (schedule_arguments::period 0) and the long one
//! that cheap steps want.
inline constexpr int default_warp_range_period = 4;
inline constexpr int long_warp_range_period = 8;

}  // namespace microsched
