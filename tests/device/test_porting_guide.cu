// The porting guide's examples (docs/porting-guide.md is cut from the marked regions): a vanilla
// Julia kernel written the usual way, its port, and a check that both give the same image.
#include <doctest/doctest.h>

#include <vector>

#include "julia/julia_program.cuh"
#include "microsched/device_buffer.hpp"
#include "microsched/scheduler.cuh"

namespace {

// example-begin vanilla-julia
__global__ void julia_vanilla(std::uint32_t* out, int width, int height, float pixel_size,
                              float cx, float cy, std::uint32_t crunch) {
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
