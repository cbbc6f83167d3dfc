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
//!
//! The round loop runs on the device: a CUDA graph (built once per program and reused) holds
//! round 0 and a WHILE conditional node whose body is one march and one shade kernel. The
//! queues' counters come in two generations picked by a device-side round counter; the last
//! shade block of a round (an atomic ticket) advances the round, records the rays left and sets
//! the loop's condition. Where the driver has no conditional nodes, the host queues the same
//! kernels in batches and reads the rays left once per batch.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "microsched/device_buffer.hpp"
#include "raycast/raycast_program.cuh"
#include "wavefront.cuh"

namespace microsched::switching_workloads::detail {

//! The words of the round's state: per queue generation its length and the entries taken so far
//! (the march queues of even and odd rounds, then the shade queues'), the round, the rays left
//! after it, the ticket of the blocks that finished it.
namespace split_words {
enum : int { march = 0, shade = 4, round = 8, left = 9, ticket = 10, count = 11 };
}  // namespace split_words

//! Everything a kernel of the split wavefront reads: one kernel parameter, the same for all.
struct split_params {
  kernels::raycast::raycast_program program;
  std::uint32_t* march_state = nullptr;  //!< the march queue's fields, array after array
  std::uint32_t* shade_state = nullptr;  //!< the shade queue's fields
  float* accumulated = nullptr;          //!< colour and opacity per ray
  std::uint32_t* words = nullptr;        //!< the queues' counters and the round's state
  std::uint32_t* counts = nullptr;       //!< per ray, 1 added when it ends; null: not counted
  std::uint32_t rays = 0;
  std::uint32_t most_rounds = 0;  //!< the loop stops here with rays left: a ray never ends
  cudaGraphConditionalHandle condition = 0;
  std::uint32_t sets_condition = 0;  //!< 1 inside the graph: the last shade block sets it
};

//! The kernels' entry points (raycast_split_wavefront.cu), for the graph's kernel nodes.
struct split_kernels {
  const void* begin = nullptr;
  const void* march = nullptr;
  const void* shade = nullptr;
};

//! The buffers and the loops of the split march/shade wavefront for up to `rays` rays.
class raycast_split_wavefront {
 public:
  //! Rounds the host-batched loop queues between two looks at the remaining count.
  static constexpr int batch_rounds = 4;
  static constexpr int block_threads = 128;

  explicit raycast_split_wavefront(task_id rays);
  ~raycast_split_wavefront();
  raycast_split_wavefront(const raycast_split_wavefront&) = delete;
  raycast_split_wavefront& operator=(const raycast_split_wavefront&) = delete;

  [[nodiscard]] task_id rays() const { return rays_; }
  //! Rounds of the last finished run (round 0 included; the host-batched loop also counts the
  //! empty rounds of its last batch); 0 before the first.
  [[nodiscard]] int rounds() const { return rounds_; }
  //! Whether runs use the graph (false: the driver has no conditional nodes).
  [[nodiscard]] bool uses_graph() const { return !graph_unavailable_; }

  //! Renders every ray of `program` (rays() of them) into its image; when `counts` is not null,
  //! each ray that ends adds 1 to counts[task]. Stream-ordered: returns once the run is queued
  //! (the host-batched loop waits for all but its last batches); finish() checks it.
  void run(const kernels::raycast::raycast_program& program, std::uint32_t* counts,
           cudaStream_t stream);
  //! Waits for the last run's round count and throws if rays were left when the loop stopped
  //! (more rounds than a ray has samples). run() calls it for the run before.
  void finish();

 private:
  [[nodiscard]] split_params params(const kernels::raycast::raycast_program& program,
                                    std::uint32_t* counts) const;
  //! The host-batched loop: rounds queued from the host, the rays left read once per batch.
  void run_batched(const split_params& p, cudaStream_t stream);
  //! Queues one round's march kernel (round 0's when `first`), then its shade kernel.
  void queue_round(const split_params& p, bool first, cudaStream_t stream);
  //! Builds and instantiates the graph for `p` (raycast_split_wavefront_graph.cu); false, with
  //! nothing kept, where the driver cannot.
  bool build_graph(const split_params& p);
  void release_graph();
  [[noreturn]] static void throw_runaway(std::uint32_t left, int rounds);

  task_id rays_;
  device_buffer<std::uint32_t> march_state_;
  device_buffer<std::uint32_t> shade_state_;
  device_buffer<float> accumulated_;
  device_buffer<std::uint32_t> words_;  //!< counters per queue generation, round, rays left
  pinned_counts status_;                //!< (round, rays left) after a run or a batch
  cuda_event batch_done_[2];
  split_kernels kernels_;
  unsigned begin_blocks_ = 1;  //!< the persistent grids: resident blocks, at most one per 128 rays
  unsigned march_blocks_ = 1;
  unsigned shade_blocks_ = 1;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  split_params graph_params_{};  //!< the parameters exec_'s kernel nodes hold
  bool graph_unavailable_ = false;
  bool pending_ = false;  //!< a graph run whose status finish() has not read
  int rounds_ = 0;
};

}  // namespace microsched::switching_workloads::detail
