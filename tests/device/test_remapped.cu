// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device tests of the remapped strategy (driver/remapped_loop.cuh): the in-kernel remap between
// task fetches. Every task runs exactly once and gives the same output as the direct mapping of
// the same program, for two paths (Head-or-Tail), four and eight (Data Group Indexing), at sizes
// around a block and a warp. docs/remap.md cuts its example from the marked region.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "julia/julia_program.cuh"
#include "microsched/check/counted_program.cuh"
#include "microsched/device_buffer.hpp"
#include "microsched/scheduler.cuh"

namespace {

// example-begin routed-program
//! Each task takes one of `Paths` paths of a branch, and its input says which: the scheduler's
//! remapped strategy asks path(t) before the task begins and groups the tasks of a block by path.
template <unsigned Paths>
struct routed_work {
  static constexpr unsigned paths = Paths;  // 2 to 32
  struct context {
    float value = 0;
    std::uint32_t steps = 0;
    std::uint32_t length = 0;
    unsigned path = 0;
  };
  const std::uint8_t* path_of = nullptr;  // the input: each task's path
  float* out = nullptr;

  __device__ unsigned path(microsched::task_id t) const { return path_of[t]; }

  __device__ context begin(microsched::task_id t) const {
    return {static_cast<float>(t % 97), 0, 8 + static_cast<std::uint32_t>(t % 13), path_of[t]};
  }
  __device__ bool step(context& c) const {
    switch (c.path % 4) {  // the branch: divergent wherever a warp mixes paths
      case 0:
        c.value = fmaf(c.value, 1.0001f, 0.5f);
        break;
      case 1:
        c.value = fmaf(c.value, 0.9999f, 0.25f);
        break;
      case 2:
        c.value = sqrtf(c.value + 1.0f);
        break;
      default:
        c.value = c.value * 0.5f + 3.0f;
        break;
    }
    return ++c.steps >= c.length;
  }
  __device__ void end(microsched::task_id t, const context& c) const { out[t] = c.value; }
};
// example-end routed-program

template <unsigned Paths>
void verify_remapped(std::uint64_t n) {
  using namespace microsched;
  CAPTURE(Paths);
  CAPTURE(n);
  std::mt19937 random(static_cast<unsigned>(n * 31 + Paths));
  std::vector<std::uint8_t> paths(n);
  for (auto& p : paths) p = static_cast<std::uint8_t>(random() % Paths);
  device_buffer<std::uint8_t> path_of(paths);
  device_buffer<float> expected(n);
  device_buffer<float> got(n);
  task_counters counts(n);
  expected.fill_bytes(0xff, nullptr);  // poison
  got.fill_bytes(0xff, nullptr);
  counts.reset();

  schedule_arguments direct;
  direct.strategy = pool_strategy::direct;
  scheduler<routed_work<Paths>> reference(direct);
  reference.run({path_of.data(), expected.data()}, n);

  // example-begin run-remapped
  schedule_arguments args;
  args.strategy = pool_strategy::remapped;  // regroup each block's tasks by path(t)
  scheduler<counted_program<routed_work<Paths>>> sched(args);
  sched.run({{path_of.data(), got.data()}, counts.data()}, n);
  // example-end run-remapped
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());

  const std::vector<float> want = expected.to_host();
  const std::vector<float> have = got.to_host();
  const exactly_once_count once = counts.check();
  std::uint64_t wrong_values = 0;
  for (std::uint64_t t = 0; t < n; ++t) {
    wrong_values += std::memcmp(&want[t], &have[t], sizeof(float)) != 0;
  }
  CAPTURE(once.detail);
  CHECK(once.missing == 0);
  CHECK(once.duplicated == 0);
  CHECK(wrong_values == 0);
}

}  // namespace

TEST_CASE("remapped: every task once, equal to the direct mapping, for 2, 4 and 8 paths") {
  const bool small = std::getenv("MICROSCHED_SANITIZE_SMALL") != nullptr;
  std::vector<std::uint64_t> sizes = {0, 1, 31, 33, 127, 128, 129, 1000};
  if (!small) sizes.push_back((std::uint64_t{1} << 20) + 7);
  for (const auto n : sizes) {
    verify_remapped<2>(n);
    verify_remapped<4>(n);
    verify_remapped<8>(n);
  }
}

TEST_CASE(
    "remapped: a program without paths is refused before any launch, naming what is missing") {
  using namespace microsched;
  schedule_arguments args;
  args.strategy = pool_strategy::remapped;
  try {
    scheduler<kernels::julia_program<float>> sched(args);
    FAIL("expected std::invalid_argument");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("path(task_id)") != std::string::npos);
  }
  CHECK(parse_pool_strategy("remapped") == pool_strategy::remapped);
  CHECK(to_string(pool_strategy::remapped) == "remapped");
}
