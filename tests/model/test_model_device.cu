// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device tests of the model area: the in-kernel BBV counts equal a CPU reference, the time probe
// counts the same executions, and every workload's regrouped launch (any order) processes each
// item once and writes the same bytes as the original launch.
#include <doctest/doctest.h>

#include <vector>

#include "microsched/check/exactly_once.hpp"
#include "microsched/device_buffer.hpp"
#include "microsched/model/bbv_probe.cuh"
#include "microsched/model/metrics.hpp"
#include "microsched/model/regroup.hpp"
#include "model/model_workload.hpp"

using namespace microsched;
using namespace microsched::model;
using namespace microsched::model_kernels;

namespace {

// example-begin probe-kernel
template <probe_mode Mode>
__global__ void toy_kernel(const int* trips, float* out, int n, bbv_sink sink) {
  const int item = blockIdx.x * blockDim.x + threadIdx.x;
  if (item >= n) return;
  bbv_probe<2, Mode> probe;  // two regions; probe_mode::off compiles to nothing
  float v = 0;
  for (int i = 0; i < trips[item]; ++i) {
    v = v * 0.5f + __sinf(v + i);  // region 0: the loop body
    probe.template leave<0>();
  }
  if (item % 3 == 0) {
    v = sqrtf(fabsf(v) + 1.0f);  // region 1: a branch a third of the items take
    probe.template leave<1>();
  }
  out[item] = v;
  probe.flush(sink, static_cast<std::uint32_t>(item));  // count: row `item` of the BBVs
}
// example-end probe-kernel

}  // namespace

TEST_CASE(
    "instrumented counts equal the CPU reference; the time probe counts the same and times every "
    "lane") {
  const int n = 1000;  // not a multiple of the block: the last block is partial
  std::vector<int> trips(n);
  for (int i = 0; i < n; ++i) trips[i] = (i * 7) % 13;
  device_buffer<int> d_trips(trips);
  device_buffer<float> out(n), plain(n);
  device_buffer<std::uint32_t> counts(static_cast<std::size_t>(n) * 2);
  counts.fill_bytes(0xff);
  toy_kernel<probe_mode::count>
      <<<(n + 127) / 128, 128>>>(d_trips.data(), out.data(), n, {counts.data(), nullptr});
  MICROSCHED_CHECK_LAUNCH("toy_kernel<count>");
  toy_kernel<probe_mode::off><<<(n + 127) / 128, 128>>>(d_trips.data(), plain.data(), n, {});
  MICROSCHED_CHECK_LAUNCH("toy_kernel<off>");
  const auto got = counts.to_host();
  for (int i = 0; i < n; ++i) {
    CHECK(got[2 * i] == static_cast<std::uint32_t>(trips[i]));
    CHECK(got[2 * i + 1] == (i % 3 == 0 ? 1u : 0u));
  }
  CHECK(out.to_host() == plain.to_host());  // counting does not change the results
  // time mode: the same counts, and every lane's cycles. A lane that ends early waits for its
  // warp, so warps are compared: warps that loop 200 times against warps that do not loop.
  std::vector<int> warp_trips(n);
  for (int i = 0; i < n; ++i) warp_trips[i] = (i / 32) % 2 == 0 ? 0 : 200;
  device_buffer<int> d_warp_trips(warp_trips);
  device_buffer<std::uint32_t> timed_counts(static_cast<std::size_t>(n) * 2), cycles(n);
  timed_counts.fill_bytes(0xff);
  cycles.fill_bytes(0);
  toy_kernel<probe_mode::time><<<(n + 127) / 128, 128>>>(d_warp_trips.data(), out.data(), n,
                                                         {timed_counts.data(), cycles.data()});
  MICROSCHED_CHECK_LAUNCH("toy_kernel<time>");
  const auto timed = timed_counts.to_host();
  const auto lane = cycles.to_host();
  double looping = 0, idle = 0;
  for (int i = 0; i < n; ++i) {
    CHECK(timed[2 * i] == static_cast<std::uint32_t>(warp_trips[i]));
    CHECK(timed[2 * i + 1] == (i % 3 == 0 ? 1u : 0u));
    CHECK(lane[i] > 0u);
    (warp_trips[i] > 0 ? looping : idle) += lane[i];
  }
  CHECK(looping > idle);  // as many looping lanes as idle ones, give or take a warp
}

namespace {

std::vector<std::uint32_t> run_outputs(divergent_workload& w, const std::uint32_t* order,
                                       unsigned* visits) {
  w.poison_outputs(nullptr);
  w.launch({probe_mode::off, order, static_cast<std::uint32_t>(w.items()), {}, visits, nullptr});
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  return w.outputs();
}

void verify_regrouped_equal_original(divergent_workload& w) {
  CAPTURE(w.name());
  const std::size_t n = w.items();
  device_buffer<unsigned> visits(n);
  visits.fill_bytes(0);
  const auto original = run_outputs(w, nullptr, visits.data());
  CHECK(count_exactly_once(visits.to_host()).passed());
  bbv_matrix bbv(n, w.region_names().size());
  bbv.loop_of = w.region_loops();
  device_buffer<std::uint32_t> counts(bbv.counts.size());
  w.launch({probe_mode::count,
            nullptr,
            static_cast<std::uint32_t>(n),
            {counts.data(), nullptr},
            nullptr,
            nullptr});
  bbv.counts = counts.to_host();
  CHECK(w.outputs() == original);  // counting leaves the outputs alone
  std::size_t nonzero = 0;
  for (const auto c : bbv.counts) nonzero += c != 0;
  CHECK(nonzero > 0);
  const std::vector<double> latency(bbv.regions, 1.0);
  for (const auto method :
       {regroup_method::sorting, regroup_method::greedy, regroup_method::greedy_max}) {
    CAPTURE(to_string(method));
    // example-begin regroup-launch
    const auto order = regroup(method, bbv, latency);  // slot s works on item order[s]
    validate_order(order, n);
    device_buffer<std::uint32_t> d_order(order);  // the kernel reads it: item_of<true>(...)
    // example-end regroup-launch
    visits.fill_bytes(0);
    CHECK(run_outputs(w, d_order.data(), visits.data()) == original);
    CHECK(count_exactly_once(visits.to_host()).passed());  // every item exactly once
    // the counts follow the items, not the threads
    device_buffer<std::uint32_t> again(bbv.counts.size());
    again.fill_bytes(0xff);
    w.launch({probe_mode::count,
              d_order.data(),
              static_cast<std::uint32_t>(n),
              {again.data(), nullptr},
              nullptr,
              nullptr});
    CHECK(again.to_host() == bbv.counts);
  }
}

}  // namespace

TEST_CASE("marching cubes: regrouped outputs equal the original's") {
  auto w = make_marching_cubes(24);
  verify_regrouped_equal_original(*w);
}

TEST_CASE("alignment: regrouped outputs equal the original's") {
  auto w = make_alignment(5000);
  verify_regrouped_equal_original(*w);
}

TEST_CASE("photon transport: regrouped outputs equal the original's") {
  auto w = make_photon(6000);
  verify_regrouped_equal_original(*w);
}

TEST_CASE("a launch asking for more threads than items without an order is refused") {
  auto w = make_photon(100);
  CHECK_THROWS_AS(w->launch({probe_mode::off, nullptr, 101, {}, nullptr, nullptr}),
                  std::invalid_argument);
}
