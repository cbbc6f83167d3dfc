// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file model_workload.hpp
//! Compute-bound kernels with control-flow divergence for the divergence model, each with
//! generated inputs and marked regions. One kernel source per workload serves every use: timed
//! (probe off), counted (BBVs) or timed per region (latencies), in the original order (thread t
//! works on item t) or regrouped (thread t works on item order[t], reference redirection). Every
//! item's outputs depend on the item alone, so any order must give the same bytes.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "microsched/model/bbv_probe.cuh"
#include "microsched/model/regression.hpp"

namespace microsched::model_kernels {

struct launch_request {
  model::probe_mode mode = model::probe_mode::off;
  const std::uint32_t* order = nullptr;  //!< device; nullptr: thread t works on item t
  std::uint32_t threads = 0;             //!< threads launched (items, or a sample's size)
  model::bbv_sink sink{};                //!< where a count or time probe writes
  unsigned* visits = nullptr;            //!< device, one per item: incremented when non-null
  cudaStream_t stream = nullptr;
};

class divergent_workload {
 public:
  virtual ~divergent_workload() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual std::size_t items() const = 0;
  [[nodiscard]] virtual std::vector<std::string> region_names() const = 0;
  //! bbv_matrix::loop_of of the regions: empty where no region is a branch inside a loop.
  [[nodiscard]] virtual std::vector<std::int32_t> region_loops() const { return {}; }
  //! Per-item inputs of the BBV regression (what the loop bounds and branches read).
  [[nodiscard]] virtual model::feature_matrix features() const = 0;
  //! Enqueues the kernel. Throws on a bad request (threads > items without an order).
  virtual void launch(const launch_request& request) = 0;
  //! Sets every output byte to 0xff.
  virtual void poison_outputs(cudaStream_t stream) = 0;
  //! The outputs as raw 32-bit words (compared bit for bit between orders).
  [[nodiscard]] virtual std::vector<std::uint32_t> outputs() const = 0;
  //! Blocks of the kernel resident per SM (occupancy), with or without an order.
  [[nodiscard]] virtual int blocks_per_sm(bool redirected) const = 0;
  static constexpr int threads_per_block = 256;
};

//! Marching cubes (CUDA samples' classify / scan / generate) on a grid^3 generated field.
[[nodiscard]] std::unique_ptr<divergent_workload> make_marching_cubes(int grid);
//! Banded local alignment of generated reads against a generated reference, with x-drop.
[[nodiscard]] std::unique_ptr<divergent_workload> make_alignment(std::size_t reads);
//! Monte Carlo photon transport through a layered slab, one photon per item.
[[nodiscard]] std::unique_ptr<divergent_workload> make_photon(std::size_t photons);

}  // namespace microsched::model_kernels
