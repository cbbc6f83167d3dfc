// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The policies' host half: the automatic grid each sets, its default deferral, which lane type a
// kernel variant compiles and where a lane keeps its task id, and the switching policy's shared
// memory and register cap. Expectations are computed here from the rules, not from the headers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "microsched/driver/budgeted_kernel.cuh"
#include "microsched/driver/persistent_kernel.cuh"
#include "microsched/policy/switching_policy.cuh"
#include "microsched/policy/termination_policy.cuh"
#include "microsched/sliced_program.cuh"

using namespace microsched;

// Outside the unnamed namespace: only its type is used, and nvcc warns of unreferenced members.
namespace policies_test {
struct two_branches {  // a managed-branch program with a 16-byte context
  static constexpr int managed_branches = 2;
  struct context {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
  };
  __device__ context begin(task_id) const { return {}; }
  template <class Gate>
  __device__ bool step(context&, Gate&) const {
    return true;
  }
  __device__ void end(task_id, const context&) const {}
};
}  // namespace policies_test
using policies_test::two_branches;

namespace {

template <std::size_t Bytes>
struct sized_program {  // a plain program whose context is Bytes bytes
  struct context {
    unsigned char bytes[Bytes] = {};
  };
  __device__ context begin(task_id) const { return {}; }
  __device__ bool step(context&) const { return true; }
  __device__ void end(task_id, const context&) const {}
};

template <class Policy, class Program, pool_strategy Strategy,
          int Period = default_warp_range_period>
using lane_of = typename Policy::template lane<Program, kernel_variant<Strategy, false, Period>>;

// Blocks per SM that keep each lane at most `per_lane` tasks, at least `least`.
int blocks_for(std::uint64_t tasks, int sms, int threads, int least, int per_lane) {
  const std::uint64_t lanes_needed = (tasks + per_lane - 1) / per_lane;
  const std::uint64_t per_sm = static_cast<std::uint64_t>(sms) * threads;
  const auto blocks =
      static_cast<int>(std::min<std::uint64_t>((lanes_needed + per_sm - 1) / per_sm, 1024));
  return std::max(least, blocks);
}

}  // namespace

TEST_CASE("termination policy: half an SM's threads, at least one block, whatever the size") {
  CHECK(termination_policy<32>::auto_blocks_per_sm == 32);
  CHECK(termination_policy<128>::auto_blocks_per_sm == 8);
  CHECK(termination_policy<256>::auto_blocks_per_sm == 4);
  CHECK(termination_policy<1024>::auto_blocks_per_sm == 1);
  for (const task_id n : {task_id{1}, task_id{1} << 20, task_id{1} << 40}) {
    CAPTURE(n);
    CHECK(termination_policy<128>::auto_blocks(n, 132) == 8);
    CHECK(termination_policy<1024>::auto_blocks(n, 1) == 1);
  }
  CHECK(termination_policy<128>::block_threads == 128);
  CHECK_FALSE(termination_policy<128>::register_cap);
  CHECK_FALSE(termination_policy<128>::switches_contexts);
  CHECK(termination_policy<128>::dynamic_shared_bytes<sized_program<4>> == 0);
}

TEST_CASE("termination policy: a check every 64 steps, whatever the switching arguments") {
  switching_arguments s;
  CHECK(termination_policy<128>::default_deferral(s) == 64);
  s.switch_every = 7;
  CHECK(termination_policy<128>::default_deferral(s) == 64);
}

TEST_CASE("termination policy: the warp_range strategy runs lanes of its period") {
  using small = sized_program<4>;
  using policy = termination_policy<128>;
  CHECK(std::is_same_v<lane_of<policy, small, pool_strategy::warp_range, 4>,
                       detail::warp_range_lane<small, 4>>);
  CHECK(std::is_same_v<lane_of<policy, small, pool_strategy::warp_range, 8>,
                       detail::warp_range_lane<small, 8>>);
  for (const bool same : {std::is_same_v<lane_of<policy, small, pool_strategy::private_pools>,
                                         detail::termination_lane<small, 128>>,
                          std::is_same_v<lane_of<policy, small, pool_strategy::hybrid>,
                                         detail::termination_lane<small, 128>>,
                          std::is_same_v<lane_of<policy, small, pool_strategy::local>,
                                         detail::termination_lane<small, 128>>}) {
    CHECK(same);
  }
}

TEST_CASE("termination lane: the task id leaves registers for contexts over 16 bytes") {
  CHECK_FALSE(detail::task_id_in_shared_memory<sized_program<1>::context>);
  CHECK_FALSE(detail::task_id_in_shared_memory<sized_program<16>::context>);
  CHECK(detail::task_id_in_shared_memory<sized_program<17>::context>);
  CHECK(detail::task_id_in_shared_memory<sized_program<64>::context>);
  // One id per thread of the block in shared memory, else a single unused slot.
  CHECK(sizeof(detail::termination_lane<sized_program<16>, 128>::temp_storage) == sizeof(task_id));
  CHECK(sizeof(detail::termination_lane<sized_program<17>, 128>::temp_storage) ==
        128 * sizeof(task_id));
  CHECK(sizeof(detail::termination_lane<sized_program<32>, 256>::temp_storage) ==
        256 * sizeof(task_id));
}

namespace policies_test {
struct says_four {  // a plain program that sets its own unrolling
  static constexpr int unrolled_steps = 4;
  struct context {
    unsigned char bytes[128] = {};
  };
  __device__ context begin(task_id) const { return {}; }
  __device__ bool step(context&) const { return true; }
  __device__ void end(task_id, const context&) const {}
};
}  // namespace policies_test

TEST_CASE("step loops: eight copies of a light program's step, one of a heavy one's") {
  CHECK(unrolled_steps_of<sized_program<12>> == 8);
  CHECK(unrolled_steps_of<sized_program<72>> == 8);  // a curand Philox state and two words
  CHECK(unrolled_steps_of<sized_program<96>> == 8);
  CHECK(unrolled_steps_of<sized_program<97>> == 1);
  CHECK(unrolled_steps_of<sized_program<104>> == 1);
  CHECK(unrolled_steps_of<policies_test::says_four> == 4);
  // The wrappers the scheduler runs keep the wrapped program's choice, whatever their own
  // context's size (a survivor entry adds the task id).
  CHECK(unrolled_steps_of<sliced_program<sized_program<104>>> == 1);
  CHECK(unrolled_steps_of<resumed_program<sized_program<92>>> == 8);
  CHECK(unrolled_steps_of<resumed_program<sized_program<104>>> == 1);
}

TEST_CASE("switching policy: 16 warps per SM, more where a lane would hold over 8 tasks") {
  using policy = switching_policy<128, 64>;
  CHECK(policy::auto_blocks_per_sm == 4);
  CHECK(switching_policy<512, 64>::auto_blocks_per_sm == 1);
  CHECK(switching_policy<1024, 8>::auto_blocks_per_sm == 1);
  CHECK(switching_policy<32, 64>::auto_blocks_per_sm == 16);
  // 132 SMs x 128 threads x 4 blocks x 8 tasks = 540672 tasks fit the least grid.
  CHECK(policy::auto_blocks(540672, 132) == 4);
  CHECK(policy::auto_blocks(540673, 132) == 5);
  CHECK(policy::auto_blocks(1, 132) == 4);
  for (const task_id n : {task_id{1000}, task_id{1} << 20, task_id{1} << 24, task_id{3} << 30}) {
    for (const int sms : {1, 16, 132}) {
      CAPTURE(n);
      CAPTURE(sms);
      CHECK(policy::auto_blocks(n, sms) == blocks_for(n, sms, 128, 4, 8));
      CHECK(switching_policy<256, 32>::auto_blocks(n, sms) == blocks_for(n, sms, 256, 2, 8));
    }
  }
}

TEST_CASE("switching policy: a fetch check per vote; the register cap always compiled") {
  switching_arguments s;
  for (const int every : {1, 4, 32}) {
    s.switch_every = every;
    CHECK(switching_policy<128, 64>::default_deferral(s) == every);
  }
  CHECK(switching_policy<128, 64>::register_cap);
  CHECK(switching_policy<128, 64>::switches_contexts);
  CHECK(switching_policy<128, 64, 0>::min_blocks_per_sm == 1);
  CHECK(switching_policy<128, 64, 3>::min_blocks_per_sm == 3);
  CHECK(std::is_same_v<switching_policy<128, 64>::params, switching_arguments>);
  CHECK(
      std::is_same_v<lane_of<switching_policy<128, 64>, two_branches, pool_strategy::private_pools>,
                     detail::switching_lane<two_branches, 64, false>>);
}

TEST_CASE("switching policy: one context pool per warp in dynamic shared memory") {
  const std::size_t b128 = switching_policy<128, 64>::dynamic_shared_bytes<two_branches>;
  const std::size_t b256 = switching_policy<256, 64>::dynamic_shared_bytes<two_branches>;
  const std::size_t b128_small = switching_policy<128, 16>::dynamic_shared_bytes<two_branches>;
  CHECK(b256 == 2 * b128);  // twice the warps
  CHECK(b128 % 4 == 0);
  // Each of the 4 warps' pools holds at least its 64 contexts, and more contexts take more room.
  CHECK(b128 >= 4 * 64 * sizeof(two_branches::context));
  CHECK(b128_small >= 4 * 16 * sizeof(two_branches::context));
  CHECK(b128_small < b128);
}
