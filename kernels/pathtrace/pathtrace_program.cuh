// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file pathtrace_program.cuh
//! Path tracing as a task program (pathtrace_math.hpp): task t traces sample t % spp of pixel
//! t / spp, one bounce per step. Its context is a production path tracer's ray state, over 100
//! bytes, and its steps are long (ten intersections, a material branch): the heavy-context
//! case, where saving and restoring contexts and holding them in registers cost the most.

#include <cstdint>

#include "microsched/config.hpp"
#include "pathtrace/pathtrace_math.hpp"

namespace microsched::kernels {

struct pathtrace_program {
  using context = pt_path;
  static_assert(sizeof(context) >= 100, "the heavy-context workload keeps 100+ bytes a path");

  std::uint32_t width = 1024;
  std::uint32_t height = 1024;
  std::uint32_t spp = 4;  //!< samples (paths) per pixel
  std::uint32_t max_depth = 64;
  std::uint32_t seed = 0;
  std::uint32_t* luminance_out = nullptr;  //!< bits of each path's float luminance
  std::uint32_t* bounces_out = nullptr;    //!< bounces per path

  __device__ context begin(task_id t) const {
    const auto pixel = static_cast<std::uint32_t>(t / spp);
    return pt_camera(pixel % width, pixel / width, width, height, pt_key(t, seed));
  }
  __device__ bool step(context& c) const { return pt_bounce(c, max_depth); }
  __device__ void end(task_id t, const context& c) const {
    luminance_out[t] = __float_as_uint(pt_luminance(c.radiance));
    bounces_out[t] = c.depth;
  }
};

}  // namespace microsched::kernels
