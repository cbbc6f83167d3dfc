// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file multi_arguments.hpp
//! What a multi-GPU run is given: which GPUs, how the range is split between them, each GPU's
//! single-GPU schedule.

#include <string>
#include <vector>

#include "microsched/multi_gpu/claim_plan.hpp"
#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched::multi_gpu {

enum class split_mode {
  dynamic,  //!< claims from a shared counter: a GPU that draws long tasks claims less
  equal,    //!< the static equal split: GPU i runs part i of the range (the published codes' way)
};

[[nodiscard]] inline const char* to_string(split_mode m) {
  return m == split_mode::dynamic ? "dynamic" : "equal";
}

struct multi_arguments {
  //! CUDA ordinals, one slot each; empty: every visible GPU. A GPU listed twice gets two slots
  //! (two schedulers, two streams) that claim from the counter like two GPUs: tests run the
  //! claim logic that way on one GPU.
  std::vector<int> devices;
  split_mode split = split_mode::dynamic;
  schedule_arguments schedule{};  //!< each slot's single-GPU schedule (automatic by default)
  claim_settings claims{};
};

}  // namespace microsched::multi_gpu
