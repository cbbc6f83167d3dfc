// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file raycast_switching_impl.cuh
//! Definitions of raycast_switching<MinBlocks>; included by one raycast_switching_cap*.cu per cap.

#include "raycast/raycast_switching.cuh"
#include "switching_runner.cuh"

namespace microsched::switching_workloads::detail {

template <int MinBlocks>
timing_stats raycast_switching<MinBlocks>::time(event_timer& timer, const program_t& program,
                                                task_id n, const variant& v,
                                                const timing_options& options,
                                                cudaStream_t stream) {
  return time_switching<MinBlocks>(timer, program, n, v, options, stream);
}

template <int MinBlocks>
void raycast_switching<MinBlocks>::run(const program_t& program, task_id n, const variant& v,
                                       cudaStream_t stream) {
  run_switching<MinBlocks>(program, n, v, stream);
}

template <int MinBlocks>
void raycast_switching<MinBlocks>::run_counted(const program_t& program, std::uint32_t* counts,
                                               task_id n, const variant& v, cudaStream_t stream) {
  detail::run_counted<MinBlocks>(program, counts, n, v, stream);
}

template <int MinBlocks>
std::string raycast_switching<MinBlocks>::resources(const program_t& program, task_id n,
                                                    const variant& v) {
  return detail::resources<MinBlocks>(program, n, v);
}

}  // namespace microsched::switching_workloads::detail
