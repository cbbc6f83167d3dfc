// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file mpi_scheduler.cuh
//! One task range [0, count) over the ranks of an MPI communicator, one GPU per rank, each task
//! run exactly once by one rank. Ranks take claims (claim_plan.hpp) from a counter in an
//! MPI window on rank 0 (mpi_claim_counter.hpp), interleaved as in one process
//! (claim_layout.hpp), and run the ordinary single-GPU scheduler on them, `in_flight` claims
//! enqueued at a time, as the GPUs of one process do (multi_scheduler.cuh). A rank's GPU is its
//! rank among the ranks of its host, modulo the GPUs it sees. run() is collective and blocks each
//! rank until its part has run, like an MPI call.
//!
//! \code
//! microsched::multi_gpu::mpi_scheduler<my_program> sched(MPI_COMM_WORLD);
//! const auto mine = sched.run(my_program{outputs_on_my_gpu}, count);  // what this rank ran
//! \endcode

#include <mpi.h>

#include <string>
#include <vector>

#include "microsched/device_buffer.hpp"
#include "microsched/multi_gpu/claim_layout.hpp"
#include "microsched/multi_gpu/claim_plan.hpp"
#include "microsched/multi_gpu/device_slots.hpp"
#include "microsched/multi_gpu/mpi_claim_counter.hpp"
#include "microsched/multi_gpu/multi_arguments.hpp"
#include "microsched/multi_gpu/multi_scheduler.cuh"

namespace microsched::multi_gpu {

//! This rank's rank among the ranks of its host (MPI_COMM_TYPE_SHARED).
[[nodiscard]] inline int mpi_local_rank(MPI_Comm comm) {
  MPI_Comm local;
  mpi_try(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local),
          "MPI_Comm_split_type");
  int rank = 0;
  mpi_try(MPI_Comm_rank(local, &rank), "MPI_Comm_rank");
  MPI_Comm_free(&local);
  return rank;
}

//! What one rank ran of a range: its claims, ranges of units of `layout`.
struct rank_claims {
  claim_layout layout;
  std::vector<claimed_range> claims;

  [[nodiscard]] bool empty() const { return claims.empty(); }
  [[nodiscard]] task_id tasks() const {
    task_id n = 0;
    for (const claimed_range& c : claims) n += layout.tasks(c);
    return n;
  }
  //! Calls f(first, n) for each run of consecutive task ids this rank ran.
  template <class F>
  void for_each_run(F&& f) const {
    for (const claimed_range& c : claims) layout.for_each_run(c, f);
  }
};

//! The GPU of this rank: its rank among the ranks of its host, modulo the GPUs it sees. Throws
//! no_device_error without a GPU.
[[nodiscard]] inline int mpi_rank_device(MPI_Comm comm) {
  const std::vector<int> visible = resolve_devices({});
  return visible[static_cast<std::size_t>(mpi_local_rank(comm)) % visible.size()];
}

template <class Program>
class mpi_scheduler {
 public:
  using slice_scheduler = scheduler<sliced_program<Program>>;

  //! Collective over `comm`. Makes this rank's GPU current for the calling thread. `args.devices`
  //! is ignored (one GPU per rank); `args.split` chooses claims or the static equal split.
  explicit mpi_scheduler(MPI_Comm comm, const multi_arguments& args = {})
      : comm_(comm),
        args_(checked(args)),
        counter_(comm),
        device_(pick_device(comm)),
        lanes_(args.schedule, args.claims) {
    mpi_try(MPI_Comm_size(comm_, &ranks_), "MPI_Comm_size");
    validate_range(0, ranks_);
  }

  [[nodiscard]] int rank() const { return counter_.rank(); }
  [[nodiscard]] int ranks() const { return ranks_; }
  [[nodiscard]] int device() const { return device_; }
  //! The single-GPU scheduler of this rank's first stream.
  [[nodiscard]] slice_scheduler& single_gpu_scheduler() { return lanes_.lanes.front()->sched; }

  //! Collective: runs every task of [0, count) exactly once over the ranks (`program` is this
  //! rank's, its outputs on this rank's GPU) and returns what this rank ran, once it has run.
  //! Every rank passes the same count. Zero tasks is a no-op (still collective).
  rank_claims run(const Program& program, task_id count) {
    validate_range(count, ranks_);
    validate_begin_ids<Program>(count);  // every rank refuses alike: the call stays collective
    counter_.reset();
    rank_claims taken{layout_of(count), {}};
    if (count == 0) return taken;
    const claim_layout layout = taken.layout;
    const task_id smallest = smallest_units(layout, ranks_, args_.claims);
    bool first = true;
    auto next = [&]() -> claimed_range {
      if (args_.split == split_mode::equal || ranks_ == 1) {
        if (!first) return {};
        first = false;
        return equal_share(count, ranks_, rank());
      }
      return take_claim(counter_, layout.units(), ranks_, smallest, args_.claims);
    };
    detail::claim_loop(lanes_, program, layout, next, taken.claims);
    for (const auto& l : lanes_.lanes) l->stream.synchronize();
    return taken;
  }

  //! What a run of `count` tasks does, for the report.
  [[nodiscard]] std::string report(task_id count) const {
    if (ranks_ == 1) return "one rank: the single-GPU scheduler runs the whole range, no claims";
    if (args_.split == split_mode::equal) {
      return std::to_string(ranks_) + " ranks: static equal split";
    }
    return std::to_string(ranks_) +
           " ranks: " + describe_claims(layout_of(count), ranks_, args_.claims) +
           " from an MPI window on rank 0, " + std::to_string(args_.claims.in_flight) +
           " in flight per rank on " + std::to_string(args_.claims.streams) + " streams";
  }

  //! The layout of a run of `count` tasks: contiguous for the equal split and for one rank (one
  //! claim of the whole range, as one process with one GPU runs it), else claims_layout().
  [[nodiscard]] claim_layout layout_of(task_id count) const {
    if (args_.split == split_mode::equal || ranks_ == 1) return contiguous_layout(count);
    return claims_layout(count, ranks_, args_.claims);
  }

 private:
  [[nodiscard]] static const multi_arguments& checked(const multi_arguments& args) {
    validate(args.claims);
    return args;
  }
  [[nodiscard]] static int pick_device(MPI_Comm comm) {
    const int device = mpi_rank_device(comm);
    MICROSCHED_CUDA_TRY(cudaSetDevice(device));
    return device;
  }

  MPI_Comm comm_;
  multi_arguments args_;
  int ranks_ = 1;
  mpi_claim_counter counter_;
  int device_ = 0;
  //! Schedulers and streams, made after pick_device made this rank's GPU current.
  detail::slot_lanes<Program> lanes_;
};

}  // namespace microsched::multi_gpu
