// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The porting guide's second chapter (docs/porting-guide-branches.md is cut from the marked
// regions): a vanilla isosurface ray caster written the usual way, its port to a managed-branch
// program (kernels/switching/raycast/raycast_program.cuh), and a check that both render the same
// image.
#include <doctest/doctest.h>

#include <cstdlib>
#include <utility>
#include <vector>

#include "microsched/device_buffer.hpp"
#include "microsched/scheduler.cuh"
#include "raycast/raycast_program.cuh"

using namespace microsched;
using kernels::raycast::ray_state;
using kernels::raycast::scene;

namespace {

// example-begin vanilla-raycast
__global__ void raycast_vanilla(std::uint32_t* image, scene view) {
  using namespace kernels::raycast;
  const int px = blockIdx.x * blockDim.x + threadIdx.x;
  const int py = blockIdx.y;
  if (px >= view.cam.width) return;
  ray_state ray = start_ray(view, px, py);
  for (;;) {
    const bool crossed = march(ray, view);  // one sample along the ray
    // bisection, Sobel, Blinn-Phong: the whole warp steps through it when one lane needs it
    if (crossed) shade(ray, view);
    if (ray_done(ray, view)) break;
  }
  image[py * view.cam.width + px] = final_colour(ray);
}
// example-end vanilla-raycast

}  // namespace

namespace {
//! Pixels differing by more than 2 in some channel, and poisoned (never written) pixels.
std::pair<int, int> compare_images(const std::vector<std::uint32_t>& want,
                                   const std::vector<std::uint32_t>& got) {
  int beyond = 0;
  int poisoned = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    poisoned += got[i] == 0xffffffffu;
    for (int c = 0; c < 4; ++c) {
      const int a = static_cast<int>((got[i] >> (8 * c)) & 0xffu);
      const int b = static_cast<int>((want[i] >> (8 * c)) & 0xffu);
      if (std::abs(a - b) > 2) {
        ++beyond;
        break;
      }
    }
  }
  return {beyond, poisoned};
}

//! Empty-space skipping at several march windows: the image stays within tolerance of vanilla's.
template <class Scheduler>
void check_skipping(Scheduler& sched, const scene& view, device_buffer<std::uint32_t>& image,
                    const device_buffer<std::uint32_t>& vanilla_image) {
  // Under compute-sanitizer (MICROSCHED_SANITIZE_SMALL set) one window.
  const bool small = std::getenv("MICROSCHED_SANITIZE_SMALL") != nullptr;
  const scene v = view;
  for (const int window : {1, 7, 32}) {
    if (small && window != 7) continue;
    kernels::raycast::raycast_program p;
    p.view = v;
    p.view.skip_empty = true;
    p.view.march_window = window;
    p.image = image.data();
    image.fill_bytes(0xff, nullptr);
    sched.run(p, static_cast<task_id>(image.size()));
    const auto reference = vanilla_image.to_host(nullptr);
    const auto [b, z] = compare_images(reference, image.to_host(nullptr));
    CAPTURE(window);
    CHECK(z == 0);
    CHECK(b <= static_cast<int>(reference.size() / 1000));
  }
}

//! The raycast sample's scheduling: pixel_order (here the tasks reversed), parked contexts
//! resumed first in first out, grabs of 4 tasks, with and without skipping.
void check_fifo_order(const kernels::raycast::raycast_program& program,
                      const schedule_arguments& pools, device_buffer<std::uint32_t>& image,
                      const std::vector<std::uint32_t>& want) {
  std::vector<std::uint32_t> reversed(image.size());
  for (std::size_t t = 0; t < reversed.size(); ++t) {
    reversed[t] = static_cast<std::uint32_t>(reversed.size() - 1 - t);
  }
  device_buffer<std::uint32_t> order(reversed);
  schedule_arguments small_grabs = pools;
  small_grabs.chunk = 4;
  small_grabs.switching = {};
  small_grabs.switching.fifo = true;
  scheduler<kernels::raycast::raycast_program, switching_policy<128, 128>> fifo(small_grabs);
  const bool small = std::getenv("MICROSCHED_SANITIZE_SMALL") != nullptr;
  for (const bool skip : {true, false}) {
    if (small && !skip) continue;
    kernels::raycast::raycast_program p = program;
    p.view.skip_empty = skip;
    p.view.pixel_order = order.data();
    image.fill_bytes(0xff, nullptr);
    fifo.run(p, static_cast<task_id>(image.size()));
    const auto [b, z] = compare_images(want, image.to_host(nullptr));
    CAPTURE(skip);
    CHECK(z == 0);
    CHECK(b <= static_cast<int>(want.size() / 1000));
  }
}

//! Tasks in 8x4 and 16x16 tiles and row-major, on the automatic grid.
void check_tiles(const kernels::raycast::raycast_program& program, const schedule_arguments& pools,
                 device_buffer<std::uint32_t>& image, const std::vector<std::uint32_t>& want) {
  schedule_arguments occupancy = pools;
  occupancy.blocks_per_sm = 0;
  occupancy.switching = {};
  scheduler<kernels::raycast::raycast_program, switching_policy<128, 64>> tiled(occupancy);
  const bool small = std::getenv("MICROSCHED_SANITIZE_SMALL") != nullptr;
  for (const auto& tile : {std::pair{8, 4}, std::pair{16, 16}, std::pair{0, 0}}) {
    if (small && tile.first != 8) continue;  // under compute-sanitizer: one run
    kernels::raycast::raycast_program p = program;
    p.view.skip_empty = tile.first == 8;
    p.view.tile_w = tile.first;
    p.view.tile_h = tile.second;
    image.fill_bytes(0xff, nullptr);
    tiled.run(p, static_cast<task_id>(image.size()));
    const auto [b, z] = compare_images(want, image.to_host(nullptr));
    CAPTURE(tile.first);
    CHECK(z == 0);
    CHECK(b <= static_cast<int>(want.size() / 1000));
  }
}
}  // namespace

TEST_CASE("porting guide: the managed-branch port renders the vanilla ray caster's image") {
  const int width = 256;
  const int height = 192;
  scene view;
  view.cam = kernels::raycast::make_camera(width, height);
  view.step_size = 0.05f;
  device_buffer<std::uint32_t> vanilla_image(width * height);
  device_buffer<std::uint32_t> ported_image(width * height);
  vanilla_image.fill_bytes(0xff, nullptr);
  ported_image.fill_bytes(0xff, nullptr);
  raycast_vanilla<<<dim3((width + 127) / 128, height), 128>>>(vanilla_image.data(), view);
  MICROSCHED_CHECK_LAUNCH("raycast_vanilla");

  // example-begin run-raycast-port
  kernels::raycast::raycast_program program;
  program.view = view;
  program.view.march_window = 16;  // up to 16 samples per step: the vote is paid once per window
  program.image = ported_image.data();

  schedule_arguments pools;  // task pools, as for termination divergence
  pools.strategy = pool_strategy::hybrid;
  pools.chunk = 32;
  pools.blocks_per_sm = 4;           // fewer warps: each chooses among more rays
  pools.switching.switch_every = 2;  // deferred: vote every 2nd visit, else keep marching
  pools.switching.default_then = 0;  // the default path of branch 0 is "no crossing"
  // 128 threads per block, 128 parked contexts per warp's pool
  scheduler<kernels::raycast::raycast_program, switching_policy<128, 128>> sched(pools);
  sched.run(program, static_cast<task_id>(width) * height);
  // example-end run-raycast-port

  const auto want = vanilla_image.to_host(nullptr);
  const auto [beyond, poisoned] = compare_images(want, ported_image.to_host(nullptr));
  CHECK(poisoned == 0);
  // Same tolerance as the raycast sample's --verify (see there for the reason).
  CHECK(beyond <= static_cast<int>(want.size() / 1000));

  SUBCASE("empty-space skipping changes no pixel beyond it") {
    check_skipping(sched, view, ported_image, vanilla_image);
  }

  SUBCASE("a task order table and rings (fifo) with small grabs render the same image") {
    check_fifo_order(program, pools, ported_image, want);
  }

  SUBCASE("tile-ordered tasks on the automatic grid render the same image") {
    check_tiles(program, pools, ported_image, want);
  }
}

// The porting guide's managed-branch program with its includes: a user's file needs nothing else.
// example-begin rare-branch-program
#include <cstdint>
#include <microsched/switching/managed_program.hpp>

//! Each task runs `rounds` rounds; a round whose random number falls below `rare_below` also runs
//! an expensive path, which few lanes of a warp need at the same time.
struct rare_branch_program {
  static constexpr int managed_branches = 1;  // one gate.take() point
  struct context {  // everything a round carries to the next: it may move to another lane
    std::uint32_t random = 0;
    std::uint32_t round = 0;
    float sum = 0.0f;
  };
  float* out = nullptr;
  std::uint32_t rounds = 100;
  std::uint32_t rare_below = 1u << 26;  // about 1.6 % of the rounds

  __device__ context begin(microsched::task_id t) const {
    context c;
    c.random = static_cast<std::uint32_t>(t) * 2654435761u + 1u;
    return c;
  }

  template <class Gate>
  __device__ bool step(context& c, Gate& gate) const {
    bool rare = false;    // read by take() on active lanes only, so a local is fine
    if (gate.active()) {  // code outside the managed paths: active lanes only
      c.random = c.random * 1664525u + 1013904223u;
      rare = c.random < rare_below;
    }
    if (gate.take(microsched::switching::branch<0>, rare)) {  // then path: the expensive one
      float v = c.sum;
      for (int k = 0; k < 256; ++k) v = fmaf(v, 0.999f, 1.0f);
      c.sum = v;
    } else if (gate.active()) {  // else path
      c.sum += 1.0f;
    }
    if (!gate.active()) return false;  // parked: the result is not read
    ++c.round;
    return c.round >= rounds;
  }

  __device__ void end(microsched::task_id t, const context& c) const { out[t] = c.sum; }
};
// example-end rare-branch-program

// example-begin run-rare-branch
#include <cstdint>
#include <microsched/check/counted_program.cuh>
#include <microsched/scheduler.cuh>

//! Runs every task of `program` with deferred switching; ending task t adds 1 to counts[t].
void run_rare_branch(const rare_branch_program& program, microsched::task_id num_tasks,
                     std::uint32_t* counts) {
  microsched::schedule_arguments args;
  args.switching.switch_every = 4;  // deferred switching: vote on every 4th visit of a branch
  // switching_policy<> follows from the program; this one: 128 threads, 128 contexts per warp
  using counted = microsched::counted_program<rare_branch_program>;
  microsched::scheduler<counted, microsched::switching_policy<128, 128>> sched(args);
  sched.run(counted{program, counts}, num_tasks);
}
// example-end run-rare-branch

// example-begin default-rare-branch
#include <microsched/automatic_switching.cuh>
#include <string>

//! `calls` calls of `program` under the default for managed-branch programs, the automatic
//! switching schedule; returns its report (the choice, its cost, each form's time).
std::string run_rare_branch_default(const rare_branch_program& program,
                                    microsched::task_id num_tasks, int calls) {
  // One object across calls is the cheapest; one per call shares the process's choice as well.
  microsched::switching::automatic_switching<rare_branch_program> automatic;
  for (int i = 0; i < calls; ++i) {
    automatic.run(program, num_tasks);  // the first calls of a size time a form each, waited for
  }
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  return automatic.report();
}
// example-end default-rare-branch

#include <cmath>

namespace {
//! rare_branch_program's results computed on the host, round by round.
std::vector<float> rare_branch_reference(const rare_branch_program& p, task_id n) {
  std::vector<float> sums(n);
  for (task_id t = 0; t < n; ++t) {
    std::uint32_t random = static_cast<std::uint32_t>(t) * 2654435761u + 1u;
    float sum = 0.0f;
    for (std::uint32_t round = 0; round < p.rounds; ++round) {
      random = random * 1664525u + 1013904223u;
      if (random < p.rare_below) {
        for (int k = 0; k < 256; ++k) sum = std::fmaf(sum, 0.999f, 1.0f);
      } else {
        sum += 1.0f;
      }
    }
    sums[t] = sum;
  }
  return sums;
}
}  // namespace

TEST_CASE("porting guide: the rare-branch program runs each task once, with the host's sums") {
  const task_id n = 50000;
  device_buffer<float> out(n);
  device_buffer<std::uint32_t> counts(n);
  rare_branch_program program;
  program.out = out.data();
  const std::vector<float> want = rare_branch_reference(program, n);
  for (const bool deferred : {true, false}) {
    CAPTURE(deferred);
    out.fill_bytes(0xff, nullptr);
    counts.fill_bytes(0, nullptr);
    if (deferred) {
      run_rare_branch(program, n, counts.data());
    } else {  // the default policy and schedule: immediate switching
      scheduler<counted_program<rare_branch_program>> immediate;
      immediate.run({program, counts.data()}, n);
    }
    const auto got = out.to_host(nullptr);
    const auto seen = counts.to_host(nullptr);
    int wrong = 0;
    int not_once = 0;
    for (task_id t = 0; t < n; ++t) {
      wrong += got[t] != want[t];
      not_once += seen[t] != 1;
    }
    CHECK(wrong == 0);
    CHECK(not_once == 0);
  }
}

TEST_CASE("porting guide: the default for a managed-branch program decides and keeps the sums") {
  const task_id n = 50000;
  device_buffer<float> out(n);
  rare_branch_program program;
  program.out = out.data();
  const std::vector<float> want = rare_branch_reference(program, n);
  out.fill_bytes(0xff, nullptr);
  const std::string report = run_rare_branch_default(program, n, 64);
  INFO(report);
  CHECK(report.find("automatic switching: ") == 0);
  CHECK(report.find("choosing") == std::string::npos);
  CHECK(out.to_host(nullptr) == want);
}
