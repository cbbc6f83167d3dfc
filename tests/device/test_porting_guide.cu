// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The porting guide's examples (docs/porting-guide.md is cut from the marked regions): a vanilla
// Julia kernel written the usual way, its port, and a check that both give the same image.
#include <doctest/doctest.h>

#include <vector>

#include "julia/julia_program.cuh"
#include "microsched/device_buffer.hpp"
#include "microsched/scheduler.cuh"

namespace {

// example-begin vanilla-julia
__global__ void julia_vanilla(std::uint32_t* out, int width, int height, float pixel_size, float cx,
                              float cy, std::uint32_t crunch) {
  const int px = blockIdx.x * blockDim.x + threadIdx.x;
  const int py = blockIdx.y;
  if (px >= width) return;
  float x = (px + 0.5f - width / 2.0f) * pixel_size;
  float y = (py + 0.5f - height / 2.0f) * pixel_size;
  std::uint32_t iterations = 0;
  for (;;) {
    const float nx = fmaf(x, x, fmaf(-y, y, cx));
    const float ny = fmaf(2.0f * x, y, cy);
    x = nx;
    y = ny;
    ++iterations;
    if (fmaf(x, x, y * y) > 4.0f || iterations >= crunch) break;
  }
  out[py * width + px] = iterations;
}
// example-end vanilla-julia

}  // namespace

TEST_CASE("porting guide: the port renders the same image as the hand-written vanilla kernel") {
  using namespace microsched;
  const int width = 300;
  const int height = 200;
  const std::uint32_t crunch = 2000;
  const auto view = kernels::make_julia_view<float>(width, height, 0.0);
  device_buffer<std::uint32_t> vanilla_out(width * height);
  device_buffer<std::uint32_t> ported_out(width * height);
  vanilla_out.fill_bytes(0xff, nullptr);
  ported_out.fill_bytes(0xff, nullptr);

  julia_vanilla<<<dim3((width + 127) / 128, height), 128>>>(
      vanilla_out.data(), width, height, view.pixel_size,
      static_cast<float>(kernels::julia_islands.cx), static_cast<float>(kernels::julia_islands.cy),
      crunch);
  MICROSCHED_CHECK_LAUNCH("julia_vanilla");

  // example-begin run-port
  kernels::julia_program<float> program;
  program.view = view;
  program.crunch = crunch;
  program.out = ported_out.data();

  schedule_arguments args;  // or parse them from the command line
  args.strategy = pool_strategy::hybrid;
  args.fetch = fetch_control::ballot(8);
  args.chunk = 64;
  args.deferral = 32;
  scheduler<kernels::julia_program<float>> sched(args);
  sched.run(program, static_cast<task_id>(width) * height);
  // example-end run-port

  const auto want = vanilla_out.to_host(nullptr);
  const auto got = ported_out.to_host(nullptr);
  int differ = 0;
  for (std::size_t i = 0; i < want.size(); ++i) differ += want[i] != got[i];
  CHECK(differ == 0);
}

// The getting-started page and the porting guide show the program below with its includes: a
// user's file needs nothing else from the library.
// example-begin julia-program
#include <cstdint>
#include <microsched/task_program.hpp>

//! The vanilla kernel's loop as a task program: task t is pixel t of a row-major image.
struct julia_task_program {
  struct context {  // the loop-carried state of one pixel
    float x = 0.0f;
    float y = 0.0f;
    std::uint32_t iterations = 0;
  };
  std::uint32_t* out = nullptr;  // device memory, width * height counts
  int width = 0;
  int height = 0;
  float pixel_size = 0.0f;
  float cx = 0.0f;
  float cy = 0.0f;
  std::uint32_t crunch = 0;  // iteration limit

  __device__ context begin(microsched::task_id t) const {
    const int px = static_cast<int>(t % static_cast<microsched::task_id>(width));
    const int py = static_cast<int>(t / static_cast<microsched::task_id>(width));
    context c;
    c.x = (px + 0.5f - width / 2.0f) * pixel_size;
    c.y = (py + 0.5f - height / 2.0f) * pixel_size;
    return c;
  }

  //! One iteration of the vanilla loop; true when the pixel is finished.
  __device__ bool step(context& c) const {
    const float nx = fmaf(c.x, c.x, fmaf(-c.y, c.y, cx));
    const float ny = fmaf(2.0f * c.x, c.y, cy);
    c.x = nx;
    c.y = ny;
    ++c.iterations;
    return fmaf(c.x, c.x, c.y * c.y) > 4.0f || c.iterations >= crunch;
  }

  __device__ void end(microsched::task_id t, const context& c) const { out[t] = c.iterations; }
};
// example-end julia-program

// example-begin render-julia
#include <cuda_runtime_api.h>

#include <cstdint>
#include <microsched/scheduler.cuh>

//! Renders the Julia set of c = cx + i cy into `out` (device memory, width * height counts).
//! Asynchronous on `stream`, like a kernel launch.
void render_julia(std::uint32_t* out, int width, int height, float pixel_size, float cx, float cy,
                  std::uint32_t crunch, cudaStream_t stream) {
  julia_task_program program;
  program.out = out;
  program.width = width;
  program.height = height;
  program.pixel_size = pixel_size;
  program.cx = cx;
  program.cy = cy;
  program.crunch = crunch;

  microsched::scheduler<julia_task_program> sched;  // checks the GPU, sizes the grid
  sched.run(program, static_cast<microsched::task_id>(width) * height, stream);
}
// example-end render-julia

// example-begin counted
#include <microsched/check/counted_program.cuh>
#include <microsched/scheduler.cuh>

//! True when every task in [0, num_tasks) began and ended exactly once under `args`. Works for
//! plain and managed-branch programs alike (the policy follows from the program).
template <class Program>
bool runs_each_task_once(const Program& program, microsched::task_id num_tasks,
                         const microsched::schedule_arguments& args = {}) {
  microsched::task_counters counts(num_tasks);
  counts.reset();  // one counter per task
  microsched::scheduler<microsched::counted_program<Program>> sched(args);
  sched.run({program, counts.data()}, num_tasks);
  return counts.check().passed();  // waits for the run; .missing and .duplicated say what failed
}
// example-end counted

// example-begin zero-step
#include <cstdint>
#include <microsched/task_program.hpp>

//! Task t counts down from t % 4: a quarter of the tasks need no step at all.
struct countdown_program {
  struct context {
    std::uint32_t left = 0;
    std::uint32_t steps = 0;
  };
  std::uint32_t* out = nullptr;

  __device__ context begin(microsched::task_id t) const {
    context c;
    c.left = static_cast<std::uint32_t>(t % 4);
    return c;
  }

  //! Called at least once per task: a task with nothing to do changes nothing and returns true.
  __device__ bool step(context& c) const {
    if (c.left == 0) return true;
    --c.left;
    ++c.steps;
    return c.left == 0;
  }

  //! Up to `budget` (at least 1) steps at once; true when the task has finished, also when the
  //! budget's last step finished it; false when the budget ran out first.
  __device__ bool advance(context& c, int budget) const {
    const std::uint32_t n =
        c.left < static_cast<std::uint32_t>(budget) ? c.left : static_cast<std::uint32_t>(budget);
    c.left -= n;
    c.steps += n;
    return c.left == 0;
  }

  __device__ void end(microsched::task_id t, const context& c) const { out[t] = c.steps; }
};
// example-end zero-step

// example-begin fixed-schedule
#include <microsched/scheduler.cuh>

//! A fixed schedule instead of the automatic one (docs/tuning.md says when each field pays).
microsched::schedule_arguments fixed_schedule() {
  microsched::schedule_arguments args;
  args.strategy = microsched::pool_strategy::hybrid;  // per-warp pools fed from a global one
  args.fetch = microsched::fetch_control::ballot(8);  // refill once 8 lanes of a warp are idle
  args.chunk = 64;                                    // tasks per grab from the global pool
  args.deferral = 32;                                 // steps between two refill checks
  return args;
}
// example-end fixed-schedule

// example-begin block-threads
#include <microsched/scheduler.cuh>

//! What a scheduler with 256-thread blocks launches for `num_tasks` tasks.
microsched::launch_plan plan_wide(microsched::task_id num_tasks) {
  microsched::scheduler<julia_task_program, microsched::termination_policy<256>> wide;
  return wide.plan(num_tasks);  // blocks, threads_per_block (256), shared memory, registers
}
// example-end block-threads

// example-begin streams
#include <microsched/device_buffer.hpp>
#include <microsched/scheduler.cuh>

//! Two images at once. A scheduler's runs share its pool counter: one scheduler per stream.
void render_two(const julia_task_program& a, const julia_task_program& b, microsched::task_id n) {
  microsched::cuda_stream stream_a;
  microsched::cuda_stream stream_b;
  microsched::scheduler<julia_task_program> sched_a;
  microsched::scheduler<julia_task_program> sched_b;
  sched_a.run(a, n, stream_a.get());
  sched_b.run(b, n, stream_b.get());  // may overlap with the run on stream_a
  sched_a.run(a, n, stream_a.get());  // reuse: runs after the first run on stream_a
  stream_a.synchronize();
  stream_b.synchronize();
}
// example-end streams

// example-begin check-vanilla
#include <cstdint>
#include <microsched/device_buffer.hpp>
#include <microsched/error.hpp>

//! True when the port renders the vanilla kernel's image, bit for bit. Both outputs are
//! poisoned first, so that a pixel nobody writes shows as a difference.
bool port_matches_vanilla(int width, int height, float pixel_size, float cx, float cy,
                          std::uint32_t crunch) {
  const auto pixels = static_cast<std::size_t>(width) * height;
  microsched::device_buffer<std::uint32_t> want(pixels);
  microsched::device_buffer<std::uint32_t> got(pixels);
  want.fill_bytes(0xff);
  got.fill_bytes(0xff);
  julia_vanilla<<<dim3((width + 127) / 128, height), 128>>>(want.data(), width, height, pixel_size,
                                                            cx, cy, crunch);
  MICROSCHED_CHECK_LAUNCH("julia_vanilla");  // throws microsched::cuda_error naming the kernel
  render_julia(got.data(), width, height, pixel_size, cx, cy, crunch, nullptr);
  return want.to_host() == got.to_host();  // to_host waits for the work queued before it
}
// example-end check-vanilla

TEST_CASE("porting guide: the self-contained program renders the vanilla kernel's image") {
  using namespace microsched;
  const int width = 300;
  const int height = 200;
  const std::uint32_t crunch = 2000;
  const auto view = kernels::make_julia_view<float>(width, height, 0.0);
  const auto cx = static_cast<float>(kernels::julia_islands.cx);
  const auto cy = static_cast<float>(kernels::julia_islands.cy);
  device_buffer<std::uint32_t> vanilla_out(width * height);
  device_buffer<std::uint32_t> ported_out(width * height);
  vanilla_out.fill_bytes(0xff, nullptr);
  ported_out.fill_bytes(0xff, nullptr);
  julia_vanilla<<<dim3((width + 127) / 128, height), 128>>>(vanilla_out.data(), width, height,
                                                            view.pixel_size, cx, cy, crunch);
  MICROSCHED_CHECK_LAUNCH("julia_vanilla");
  render_julia(ported_out.data(), width, height, view.pixel_size, cx, cy, crunch, nullptr);
  CHECK(ported_out.to_host(nullptr) == vanilla_out.to_host(nullptr));

  julia_task_program program;
  program.out = ported_out.data();
  program.width = width;
  program.height = height;
  program.pixel_size = view.pixel_size;
  program.cx = cx;
  program.cy = cy;
  program.crunch = crunch;
  const auto n = static_cast<task_id>(width) * height;
  CHECK(runs_each_task_once(program, n));
  schedule_arguments local;
  local.strategy = pool_strategy::local;
  local.chunk = 256;
  CHECK(runs_each_task_once(program, n, local));

  CHECK(runs_each_task_once(program, n, fixed_schedule()));

  SUBCASE("BlockThreads and the launch plan") {
    const microsched::launch_plan plan = plan_wide(n);
    CHECK(plan.threads_per_block == 256);
    CHECK(plan.blocks >= 1);
    microsched::scheduler<julia_task_program, microsched::termination_policy<256>> wide;
    ported_out.fill_bytes(0xff, nullptr);
    wide.run(program, n);
    CHECK(ported_out.to_host(nullptr) == vanilla_out.to_host(nullptr));
  }

  SUBCASE("one scheduler per stream; a scheduler is reused on its stream") {
    device_buffer<std::uint32_t> second_out(width * height);
    second_out.fill_bytes(0xff, nullptr);
    ported_out.fill_bytes(0xff, nullptr);
    julia_task_program second = program;
    second.out = second_out.data();
    render_two(program, second, n);
    CHECK(ported_out.to_host(nullptr) == vanilla_out.to_host(nullptr));
    CHECK(second_out.to_host(nullptr) == vanilla_out.to_host(nullptr));
  }
}

TEST_CASE("getting started: the check against the vanilla kernel finds no difference") {
  using namespace microsched;
  const int width = 300;
  const int height = 200;
  const auto view = kernels::make_julia_view<float>(width, height, 0.0);
  CHECK(port_matches_vanilla(width, height, view.pixel_size,
                             static_cast<float>(kernels::julia_islands.cx),
                             static_cast<float>(kernels::julia_islands.cy), 2000));
}

TEST_CASE("porting guide: tasks that need zero steps begin, take one step that returns true, end") {
  using namespace microsched;
  const task_id n = 100000;
  device_buffer<std::uint32_t> out(n);
  for (const int deferral : {0, 1, 3}) {
    CAPTURE(deferral);
    out.fill_bytes(0xff, nullptr);
    countdown_program program;
    program.out = out.data();
    schedule_arguments args;  // deferral 0: the automatic schedule; else hybrid pools
    if (deferral > 0) args.strategy = pool_strategy::hybrid;
    args.deferral = deferral;
    CHECK(runs_each_task_once(program, n, args));
    const auto got = out.to_host(nullptr);
    int wrong = 0;
    for (task_id t = 0; t < n; ++t) wrong += got[t] != static_cast<std::uint32_t>(t % 4);
    CHECK(wrong == 0);
  }
}

// example-begin loop-with-breaks
#include <cstdint>
#include <microsched/task_program.hpp>

//! The usual loop shape: a counted for loop that breaks at the top (converged) and at the
//! bottom (bailed out); a break skips the increment.
__global__ void settle_vanilla(std::uint32_t* out, std::uint32_t n, std::uint32_t max_iter) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  std::uint32_t x = t * 2654435761u;
  std::uint32_t iter = 0;
  for (; iter < max_iter; ++iter) {
    if (x % 7 == 0) break;  // converged
    x = (x & 1) ? x / 2 + 0x9e3779b9u : x / 2;
    if (x < 4096) break;  // bailed out
  }
  out[t] = iter * 4096 + x % 4096;
}

//! Its port: the loop test first, each break a `return true` before the increment, the
//! increment last, followed by the loop test for the next pass.
struct settle_program {
  struct context {
    std::uint32_t x = 0;
    std::uint32_t iter = 0;
  };
  std::uint32_t* out = nullptr;
  std::uint32_t max_iter = 0;

  __device__ context begin(microsched::task_id t) const {
    context c;
    c.x = static_cast<std::uint32_t>(t) * 2654435761u;
    return c;
  }

  __device__ bool step(context& c) const {
    if (c.iter >= max_iter) return true;  // the loop test: a task of no pass at all
    if (c.x % 7 == 0) return true;        // break at the top
    c.x = (c.x & 1) ? c.x / 2 + 0x9e3779b9u : c.x / 2;
    if (c.x < 4096) return true;  // break at the bottom: the increment does not run
    ++c.iter;
    return c.iter >= max_iter;  // the loop test of the next pass
  }

  __device__ void end(microsched::task_id t, const context& c) const {
    out[t] = c.iter * 4096 + c.x % 4096;
  }
};
// example-end loop-with-breaks

TEST_CASE("porting guide: a for loop with breaks gives the vanilla kernel's outputs") {
  using namespace microsched;
  for (const std::uint32_t n : {1u, 31u, 33u, 100003u}) {
    for (const std::uint32_t max_iter : {0u, 1u, 5u, 40u}) {
      CAPTURE(n);
      CAPTURE(max_iter);
      device_buffer<std::uint32_t> want(n), got(n);
      want.fill_bytes(0xff, nullptr);
      got.fill_bytes(0xff, nullptr);
      settle_vanilla<<<(n + 255) / 256, 256>>>(want.data(), n, max_iter);
      MICROSCHED_CHECK_LAUNCH("settle_vanilla");
      settle_program program;
      program.out = got.data();
      program.max_iter = max_iter;
      CHECK(runs_each_task_once(program, n));
      CHECK(got.to_host(nullptr) == want.to_host(nullptr));
    }
  }
}

// example-begin readme
#include <cstdint>
#include <microsched/scheduler.cuh>

struct collatz {  // task t: how many steps take t + 1 down to 1 (3n + 1 when odd, n / 2 when even)
  struct context {
    std::uint64_t n = 1;
    std::uint32_t steps = 0;
  };
  std::uint32_t* out = nullptr;
  __device__ context begin(microsched::task_id t) const { return {t + 1, 0}; }
  __device__ bool step(context& c) const {  // one step; true when the task is finished
    if (c.n == 1) return true;
    c.n = c.n % 2 == 1 ? 3 * c.n + 1 : c.n / 2;
    ++c.steps;
    return c.n == 1;
  }
  __device__ void end(microsched::task_id t, const context& c) const { out[t] = c.steps; }
};

void collatz_steps(std::uint32_t* out, std::uint64_t count, cudaStream_t stream) {
  microsched::scheduler<collatz> sched;    // checks the program, queries the GPU
  sched.run(collatz{out}, count, stream);  // each task once; asynchronous, like a launch
}
// example-end readme

TEST_CASE("README: the Collatz example gives the host's step counts") {
  const std::uint64_t count = 200000;
  microsched::device_buffer<std::uint32_t> out(count);
  out.fill_bytes(0xff, nullptr);
  collatz_steps(out.data(), count, nullptr);
  const auto got = out.to_host(nullptr);
  int wrong = 0;
  for (std::uint64_t t = 0; t < count; ++t) {
    std::uint64_t n = t + 1;
    std::uint32_t steps = 0;
    while (n != 1) {
      n = n % 2 == 1 ? 3 * n + 1 : n / 2;
      ++steps;
    }
    wrong += got[t] != steps;
  }
  CHECK(wrong == 0);
}
