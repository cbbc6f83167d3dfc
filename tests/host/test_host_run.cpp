// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// run_on_host: a __host__ __device__ task program runs on the CPU with no GPU, each task once in
// id order, its outputs equal to the kernel's loop on the CPU; its steps per task are counted and
// summarised; a task that never ends stops at the step limit, naming it; a managed-branch program
// runs with its branches as ordinary ones.
#include <cuda_runtime_api.h>  // __host__ and __device__ for a host compiler
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "microsched/check/host_run.hpp"

using namespace microsched;

// example-begin host-run
#include <cstdint>
#include <microsched/check/host_run.hpp>
#include <vector>

//! The Collatz count of 27 + t: begin, step and end are __host__ __device__, so the same program
//! runs under the scheduler (device pointers) and on the CPU (host pointers).
struct collatz_program {
  struct context {
    std::uint64_t x = 0;
    std::uint32_t steps = 0;
  };
  std::uint32_t* out = nullptr;
  __host__ __device__ context begin(microsched::task_id t) const { return {27 + t, 0}; }
  __host__ __device__ bool step(context& c) const {
    if (c.x <= 1) return true;  // the loop test first: a task of no pass at all
    c.x = (c.x % 2 == 0) ? c.x / 2 : 3 * c.x + 1;
    ++c.steps;
    return c.x <= 1;
  }
  __host__ __device__ void end(microsched::task_id t, const context& c) const { out[t] = c.steps; }
};

//! The port on the CPU, without a GPU: its outputs (compare them with the original's CPU code)
//! and what its divergence costs a warp.
std::vector<std::uint32_t> collatz_on_host(microsched::task_id n,
                                           microsched::step_statistics& lengths) {
  std::vector<std::uint32_t> out(n, 0xffffffffu);  // poisoned: a task that never ends shows
  const collatz_program program{out.data()};
  lengths = microsched::summarize(microsched::run_on_host(program, n));
  return out;  // lengths.warp_max_mean / lengths.mean: what the scheduler can win at most
}
// example-end host-run

TEST_CASE("run_on_host: every task once, in order, equal to the loop it ports") {
  const task_id n = 1000;
  step_statistics lengths;
  const std::vector<std::uint32_t> out = collatz_on_host(n, lengths);
  std::uint64_t sum = 0;
  std::uint64_t most = 0;
  for (task_id t = 0; t < n; ++t) {
    std::uint64_t x = 27 + t;
    std::uint32_t count = 0;
    while (x > 1) {
      x = (x % 2 == 0) ? x / 2 : 3 * x + 1;
      ++count;
    }
    REQUIRE(out[t] == count);
    sum += count;
    most = count > most ? count : most;
  }
  CHECK(lengths.mean == doctest::Approx(static_cast<double>(sum) / n));  // a call of step each
  CHECK(lengths.max == most);
  CHECK(lengths.warp_max_mean >= lengths.mean);
  CHECK(out[0] == 111);  // 27 takes 111 steps to reach 1
  CHECK(run_on_host(collatz_program{nullptr}, 0).empty());
}

namespace {
struct endless_program {
  struct context {
    std::uint32_t steps = 0;
  };
  int* ended = nullptr;
  __host__ __device__ context begin(task_id) const { return {}; }
  __host__ __device__ bool step(context& c) const { return ++c.steps == 0; }
  __host__ __device__ void end(task_id, const context&) const { ++*ended; }
};
}  // namespace

TEST_CASE("run_on_host stops a task that never ends at the step limit, naming it") {
  int ended = 0;
  CHECK_THROWS_WITH_AS((void)run_on_host(endless_program{&ended}, 3, 1000),
                       "run_on_host: task 0 ran past 1000 steps (the step limit)",
                       std::runtime_error);
  CHECK(ended == 0);
}

TEST_CASE("step statistics: the mean, the most, and what a warp pays") {
  std::vector<std::uint64_t> steps(33, 1);
  steps[5] = 9;
  steps[20] = 9;
  steps[32] = 4;
  const step_statistics s = summarize(steps);
  CHECK(s.max == 9);
  CHECK(s.longest_task == 5);
  CHECK(s.mean == doctest::Approx((30.0 + 9 + 9 + 4) / 33));
  CHECK(s.warp_max_mean == doctest::Approx((9.0 + 4) / 2));
  CHECK(summarize(std::vector<std::uint64_t>{}).mean == 0);
}

namespace {
//! A managed-branch program: every third step of a task takes the expensive branch.
struct branchy_program {
  static constexpr int managed_branches = 1;
  struct context {
    std::uint32_t left = 0;
    std::uint32_t taken = 0;
  };
  std::uint32_t* out = nullptr;
  __host__ __device__ context begin(task_id t) const {
    return {static_cast<std::uint32_t>(1 + t % 10), 0};
  }
  template <class Gate>
  __host__ __device__ bool step(context& c, Gate& gate) const {
    if (gate.take(switching::branch_index<0>{}, c.left % 3 == 0)) ++c.taken;
    return --c.left == 0;
  }
  __host__ __device__ void end(task_id t, const context& c) const { out[t] = c.taken; }
};
}  // namespace

TEST_CASE("run_on_host runs a managed-branch program, its branches ordinary ones") {
  std::vector<std::uint32_t> out(20, 0xffffffffu);
  const auto steps = run_on_host(branchy_program{out.data()}, 20);
  for (task_id t = 0; t < 20; ++t) {
    const std::uint32_t n = 1 + t % 10;
    CHECK(steps[t] == n);
    CHECK(out[t] == n / 3);  // the multiples of 3 in [1, n]
  }
}
