#pragma once
//! @file driver_params.hpp
//! What the persistent driver kernel receives (CUTLASS-style Params): derived once on the host
//! from schedule_arguments and the problem size.

#include "microsched/config.hpp"
#include "microsched/pool/global_task_pool.cuh"
#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched {

struct driver_params {
  global_pool_ref pool;      //!< the global pool (Global, Hybrid); Local reads only its total
  task_id chunk = 1;         //!< tasks per grab (Local: per block)
  int deferral = 1;          //!< steps between fetch checks
  int idle_threshold = 1;    //!< idle lanes that make a warp leave the compute loop
  bool atomic_count = false; //!< count idle lanes with shared-memory atomics (Atomic(n))
};

//! Arguments -> Params for one launch over the global pool `pool`.
[[nodiscard]] inline driver_params make_driver_params(const schedule_arguments& args,
                                                      const global_pool_ref& pool) {
  driver_params params;
  params.pool = pool;
  params.chunk = args.chunk;
  params.deferral = args.deferral;
  params.idle_threshold = args.fetch.idle_threshold;
  params.atomic_count = args.fetch.kind == fetch_kind::atomic;
  return params;
}

}  // namespace microsched
