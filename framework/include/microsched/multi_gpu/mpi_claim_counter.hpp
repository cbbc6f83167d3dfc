// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file mpi_claim_counter.hpp
//! The coarse-claim counter of several processes: one 64-bit word in an MPI window on rank 0,
//! read and advanced with one-sided atomics (MPI_Fetch_and_op), so no rank serves the others.
//! take_claim (claim_plan.hpp) uses it like the host atomic: a read (MPI_NO_OP), then a
//! fetch-and-add, each flushed. Needs <mpi.h>: only MPI programs include it.

#include <mpi.h>

#include <exception>
#include <stdexcept>
#include <string>

#include "microsched/config.hpp"

namespace microsched::multi_gpu {

//! Throws std::runtime_error naming the MPI call when it fails.
inline void mpi_try(int code, const char* call) {
  if (code != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw std::runtime_error(std::string(call) + " failed: " + std::string(text, length));
  }
}

class mpi_claim_counter {
 public:
  //! Collective over `comm`: rank 0 holds the counter; every rank keeps a passive-target epoch
  //! open on it (MPI_Win_lock_all) for the counter's life.
  explicit mpi_claim_counter(MPI_Comm comm) : comm_(comm) {
    mpi_try(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    const MPI_Aint bytes = rank_ == 0 ? sizeof(task_id) : 0;
    mpi_try(MPI_Win_allocate(bytes, sizeof(task_id), MPI_INFO_NULL, comm_, &base_, &window_),
            "MPI_Win_allocate");
    if (rank_ == 0) *base_ = 0;
    mpi_try(MPI_Win_lock_all(MPI_MODE_NOCHECK, window_), "MPI_Win_lock_all");
    mpi_try(MPI_Barrier(comm_), "MPI_Barrier");
  }
  //! A rank unwinding from an error leaves the window to MPI_Finalize or MPI_Abort: freeing it
  //! is collective, and would wait for ranks that are not freeing it.
  ~mpi_claim_counter() {
    if (std::uncaught_exceptions() > unwinding_) return;
    MPI_Win_unlock_all(window_);
    MPI_Win_free(&window_);
  }
  mpi_claim_counter(const mpi_claim_counter&) = delete;
  mpi_claim_counter& operator=(const mpi_claim_counter&) = delete;

  //! Collective: every rank has finished claiming from the last range, then the counter reads 0
  //! for all of them.
  void reset() {
    mpi_try(MPI_Barrier(comm_), "MPI_Barrier");
    if (rank_ == 0) {
      const task_id zero = 0;
      mpi_try(MPI_Accumulate(&zero, 1, MPI_UINT64_T, 0, 0, 1, MPI_UINT64_T, MPI_REPLACE, window_),
              "MPI_Accumulate");
      mpi_try(MPI_Win_flush(0, window_), "MPI_Win_flush");
    }
    mpi_try(MPI_Barrier(comm_), "MPI_Barrier");
  }

  [[nodiscard]] task_id read() {
    task_id value = 0;
    mpi_try(MPI_Fetch_and_op(nullptr, &value, MPI_UINT64_T, 0, 0, MPI_NO_OP, window_),
            "MPI_Fetch_and_op");
    mpi_try(MPI_Win_flush(0, window_), "MPI_Win_flush");
    return value;
  }

  [[nodiscard]] task_id fetch_add(task_id n) {
    task_id old = 0;
    mpi_try(MPI_Fetch_and_op(&n, &old, MPI_UINT64_T, 0, 0, MPI_SUM, window_), "MPI_Fetch_and_op");
    mpi_try(MPI_Win_flush(0, window_), "MPI_Win_flush");
    return old;
  }

  [[nodiscard]] int rank() const { return rank_; }

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  task_id* base_ = nullptr;
  MPI_Win window_ = MPI_WIN_NULL;
  int unwinding_ = std::uncaught_exceptions();  //!< exceptions in flight when it was made
};

}  // namespace microsched::multi_gpu
