// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file driver_params.hpp
//! What the persistent driver kernel receives (CUTLASS-style Params), derived once per launch on
//! the host from schedule_arguments and the problem size. Device-side: no host headers.

#include "microsched/config.hpp"
#include "microsched/pool/global_pool_ref.cuh"

namespace microsched {

struct driver_params {
  global_pool_ref pool;  //!< the global pool (Global, Hybrid); Local reads only its total
  //! The pool counter of the next launch in this stream: the kernel zeroes it
  //! (global_task_pool::next_counter()).
  unsigned long long* next_counter = nullptr;
  task_id chunk = 1;       //!< tasks per grab (Local: per block)
  int deferral = 1;        //!< steps (or step visits) between fetch checks
  int idle_threshold = 1;  //!< idle lanes that make a warp leave the compute loop
};

}  // namespace microsched
