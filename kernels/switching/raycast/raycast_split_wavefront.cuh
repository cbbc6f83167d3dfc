// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file raycast_split_wavefront.cuh
//! The expert wavefront baseline of the ray caster: what a CUDA expert writes by hand for it,
//! marching split from shading (Laine, Karras and Aila, "Megakernels considered harmful").
//!
//! A round is two kernels. The march kernel (no shading code: fewer registers, more warps per
//! SM) takes each ray of the march queue to its next isosurface crossing or to its end; a
//! crossing ray is appended to the shade queue, an ended one writes its pixel. The shade kernel
//! shades every ray of the shade queue (full warps take the expensive path together) and either
//! ends it or appends it to the next round's march queue. The rays' state moves with the queues
//! as structure-of-arrays (one array per field: coalesced loads and stores); the colour and
//! opacity, which only shading changes, stay in per-ray arrays. Both kernels run a persistent
//! grid whose warps take 32 queue entries at a time (one atomicAdd), read the queue's length
//! from device memory, and append with one atomicAdd per warp (__ballot_sync, __popc), so the
//! host never waits for a count to size a launch. The step code is the program's own
//! (raycast_program.cuh: begin, march_window, shade, ray_done, end), so the image is vanilla's.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "microsched/device_buffer.hpp"
#include "raycast/raycast_program.cuh"
#include "wavefront.cuh"

namespace microsched::switching_workloads::detail {

//! The buffers and the host loop of the split march/shade wavefront for up to `rays` rays.
class raycast_split_wavefront {
 public:
  //! Rounds queued between two looks at the remaining count.
  static constexpr int batch_rounds = 4;
  static constexpr int block_threads = 128;

  explicit raycast_split_wavefront(task_id rays);

  [[nodiscard]] task_id rays() const { return rays_; }
  //! Rounds queued by the last run, the empty ones after the last ray ended included.
  [[nodiscard]] int rounds() const { return rounds_; }

  //! Renders every ray of `program` (rays() of them) into its image; when `counts` is not null,
  //! each ray that ends adds 1 to counts[task]. Stream-ordered; the host waits for a batch's
  //! remaining count only after the next batch is queued.
  void run(const kernels::raycast::raycast_program& program, std::uint32_t* counts,
           cudaStream_t stream);

 private:
  //! Queues round `round`'s march kernel, then its shade kernel.
  void queue_round(const kernels::raycast::raycast_program& program, std::uint32_t* counts,
                   int round, cudaStream_t stream);

  task_id rays_;
  device_buffer<std::uint32_t> march_state_;  //!< the march queue's fields, array after array
  device_buffer<std::uint32_t> shade_state_;  //!< the shade queue's fields
  device_buffer<float> accumulated_;          //!< colour and opacity per ray
  device_buffer<std::uint32_t> counters_;     //!< per queue generation: length, next entry taken
  pinned_counts remaining_;                   //!< rays left after a batch, two batches' worth
  cuda_event batch_done_[2];
  unsigned begin_blocks_ = 1;  //!< the persistent grids: resident blocks, at most one per 128 rays
  unsigned march_blocks_ = 1;
  unsigned shade_blocks_ = 1;
  int rounds_ = 0;
};

}  // namespace microsched::switching_workloads::detail
