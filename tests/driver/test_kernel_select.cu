// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The driver's host half: which kernel each schedule launches (kernel_select.cuh), the 32-bit id
// bound of the one-thread-per-task kernels, the source each strategy compiles, and the parameters'
// defaults. Kernel addresses are compared on the host; no kernel is launched.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "microsched/driver/kernel_select.cuh"
#include "microsched/driver/task_source.cuh"
#include "microsched/policy/switching_policy.cuh"
#include "microsched/pool/global_task_pool.cuh"

using namespace microsched;

// Outside the unnamed namespace: only its type is used, and nvcc warns of unreferenced members.
namespace kernel_select_test {
struct held_context {  // a context that cannot be saved by a copy of its bytes
  struct context {
    context() = default;
    context(const context& other) : left(other.left) {}
    context& operator=(const context& other) {
      left = other.left;
      return *this;
    }
    unsigned left = 0;
  };
  __device__ context begin(task_id) const { return {}; }
  __device__ bool step(context&) const { return true; }
  __device__ void end(task_id, const context&) const {}
};
}  // namespace kernel_select_test

namespace {

struct countdown {  // task t runs t % 5 steps
  struct context {
    unsigned left = 0;
  };
  unsigned* out = nullptr;
  __device__ context begin(task_id t) const { return {static_cast<unsigned>(t % 5)}; }
  __device__ bool step(context& c) const { return c.left == 0 || --c.left == 0; }
  __device__ void end(task_id t, const context&) const { out[t] = 1; }
};

struct routed_countdown : countdown {  // the same, with the path of each task known up front
  static constexpr unsigned paths = 2;
  __device__ unsigned path(task_id t) const { return static_cast<unsigned>(t % 2); }
};

using policy = termination_policy<128>;
using select = detail::kernel_select<countdown, policy>;
using routed_select = detail::kernel_select<routed_countdown, policy>;

// Kernels compare by address; doctest prints an address, not a function pointer.
template <class F>
const void* k(F* kernel) {
  return reinterpret_cast<const void*>(kernel);
}

template <class Program, class Policy, pool_strategy Strategy,
          int Period = default_warp_range_period>
const void* persistent() {
  return k(&persistent_kernel<Program, Policy, kernel_variant<Strategy, false, Period>>);
}

schedule_arguments with(pool_strategy strategy, int period = 0) {
  schedule_arguments s;
  s.strategy = strategy;
  s.period = period;
  return s;
}

constexpr task_id two_31 = task_id{1} << 31;

}  // namespace

TEST_CASE("narrow_ids: 32-bit ids up to 2^31 tasks, 64-bit beyond") {
  CHECK(narrow_ids(0));
  CHECK(narrow_ids(1));
  CHECK(narrow_ids(two_31 - 1));
  CHECK(narrow_ids(two_31));
  CHECK_FALSE(narrow_ids(two_31 + 1));
  CHECK_FALSE(narrow_ids(task_id{1} << 40));
}

TEST_CASE("direct: the textbook kernel while ids fit 32 bits, the grid-stride loop otherwise") {
  const void* textbook = k(&direct_kernel_one_per_thread<countdown, direct_block_threads>);
  const void* strided = k(&direct_kernel_strided<countdown>);
  CHECK(direct_block_threads == 256);
  CHECK(k(select::direct(with(pool_strategy::direct), 1)) == textbook);
  CHECK(k(select::direct(with(pool_strategy::direct), two_31)) == textbook);
  CHECK(k(select::direct(with(pool_strategy::direct), two_31 + 1)) == strided);
  // strided asks for the loop at any size
  CHECK(k(select::direct(with(pool_strategy::strided), 1)) == strided);
  CHECK(k(select::direct(with(pool_strategy::strided), two_31 + 1)) == strided);
  // A plain program's textbook kernel keeps blocks of 256 whatever block is asked for.
  CHECK(k(select::direct(with(pool_strategy::direct), 1, direct_small_block_threads)) == textbook);
}

TEST_CASE("direct: a managed-branch program's textbook kernel in either block size") {
  using managed = detail::kernel_select<countdown, switching_policy<128, 32>>;
  const void* wide = k(&direct_kernel_one_per_thread<countdown, direct_block_threads>);
  const void* small = k(&direct_kernel_one_per_thread<countdown, direct_small_block_threads>);
  CHECK(direct_small_block_threads == 128);
  CHECK(k(managed::direct(with(pool_strategy::direct), 1)) == wide);
  CHECK(k(managed::direct(with(pool_strategy::direct), 1, direct_small_block_threads)) == small);
  CHECK(k(managed::direct(with(pool_strategy::direct), two_31 + 1, direct_small_block_threads)) ==
        k(&direct_kernel_strided<countdown>));
  CHECK(k(managed::direct(with(pool_strategy::strided), 1, direct_small_block_threads)) ==
        k(&direct_kernel_strided<countdown>));
}

TEST_CASE("direct_threads_for: the smaller block only where it keeps more threads resident") {
  CHECK(direct_threads_for(8, 16) == 256);  // a full SM either way
  CHECK(direct_threads_for(3, 7) == 128);   // 68 registers a thread: 768 against 896 threads
  CHECK(direct_threads_for(4, 8) == 256);   // 64 registers: equal
  CHECK(direct_threads_for(0, 1) == 128);   // a block of 256 does not fit at all
  CHECK(direct_threads_for(1, 1) == 256);
}

TEST_CASE("budgeted: the pass's id width follows the task count; survivors on private pools") {
  CHECK(select::budgetable);
  CHECK(k(select::budgeted(two_31)) == k(&budgeted_pass<countdown, 256, std::uint32_t>));
  CHECK(k(select::budgeted(two_31 + 1)) == k(&budgeted_pass<countdown, 256, std::uint64_t>));
  const auto s = with(pool_strategy::budgeted);
  CHECK(k(select::tail_for<policy>(s)) ==
        persistent<resumed_program<countdown>, policy, pool_strategy::private_pools>());
  CHECK(k(select::tail_for<select::one_block_policy>(s)) ==
        persistent<resumed_program<countdown>, termination_policy<1024>,
                   pool_strategy::private_pools>());
  // A context that is not trivially copyable cannot be saved to the survivor queue.
  using held = detail::kernel_select<kernel_select_test::held_context, policy>;
  CHECK_FALSE(held::budgetable);
  CHECK(k(held::budgeted(100)) == nullptr);
  CHECK(k(held::tail_for<policy>(s)) == nullptr);
}

TEST_CASE("kernel: one persistent kernel per strategy and period") {
  CHECK(k(select::kernel(with(pool_strategy::local))) ==
        persistent<countdown, policy, pool_strategy::local>());
  CHECK(k(select::kernel(with(pool_strategy::private_pools))) ==
        persistent<countdown, policy, pool_strategy::private_pools>());
  CHECK(k(select::kernel(with(pool_strategy::hybrid))) ==
        persistent<countdown, policy, pool_strategy::hybrid>());
  // The warp_range strategy's period: 0 means the default (4), 8 the long one.
  CHECK(default_warp_range_period == 4);
  CHECK(long_warp_range_period == 8);
  const void* stream4 = persistent<countdown, policy, pool_strategy::warp_range, 4>();
  const void* stream8 = persistent<countdown, policy, pool_strategy::warp_range, 8>();
  CHECK(k(select::kernel(with(pool_strategy::warp_range))) == stream4);
  CHECK(k(select::kernel(with(pool_strategy::warp_range, 4))) == stream4);
  CHECK(k(select::kernel(with(pool_strategy::warp_range, 8))) == stream8);
  CHECK(stream4 != stream8);
  // Strategies without a persistent kernel of their own get the hybrid one.
  const void* hybrid = persistent<countdown, policy, pool_strategy::hybrid>();
  CHECK(k(select::kernel(with(pool_strategy::automatic))) == hybrid);
  CHECK(k(select::kernel(with(pool_strategy::direct))) == hybrid);
  CHECK(k(select::kernel(with(pool_strategy::budgeted))) == hybrid);
}

TEST_CASE("kernel: the remapped strategy only for programs that name their paths") {
  CHECK_FALSE(select::routed);
  CHECK(routed_select::routed);
  CHECK(k(select::kernel(with(pool_strategy::remapped))) ==
        persistent<countdown, policy, pool_strategy::hybrid>());
  CHECK(k(routed_select::kernel(with(pool_strategy::remapped))) ==
        persistent<routed_countdown, policy, pool_strategy::remapped>());
}

TEST_CASE("one-block kernel: the pooled strategies on 1024-thread blocks, no kernel otherwise") {
  using one = termination_policy<1024>;
  CHECK(select::one_block_threads == 1024);
  CHECK(std::is_same_v<select::one_block_policy, one>);
  CHECK(k(select::one_block_kernel(with(pool_strategy::private_pools))) ==
        persistent<countdown, one, pool_strategy::private_pools>());
  CHECK(k(select::one_block_kernel(with(pool_strategy::hybrid))) ==
        persistent<countdown, one, pool_strategy::hybrid>());
  CHECK(k(select::one_block_kernel(with(pool_strategy::warp_range, 8))) ==
        persistent<countdown, one, pool_strategy::warp_range, 8>());
  // Local and remapped blocks are units of work; the direct forms are not persistent.
  for (const auto s : {pool_strategy::local, pool_strategy::remapped, pool_strategy::direct,
                       pool_strategy::strided, pool_strategy::budgeted, pool_strategy::automatic}) {
    CAPTURE(to_string(s));
    CHECK(k(select::one_block_kernel(with(s))) == nullptr);
  }
}

TEST_CASE("task sources: each strategy compiles its own, hybrid for the rest") {
  CHECK(std::is_same_v<detail::task_source_t<pool_strategy::local>, local_task_source>);
  CHECK(std::is_same_v<detail::task_source_t<pool_strategy::private_pools>, private_pools_source>);
  CHECK(std::is_same_v<detail::task_source_t<pool_strategy::warp_range>, warp_range_source>);
  CHECK(std::is_same_v<detail::task_source_t<pool_strategy::hybrid>, hybrid_task_source>);
  CHECK(std::is_same_v<detail::task_source_t<pool_strategy::remapped>, hybrid_task_source>);
  // A stream refill hands the warp a range; the others hand each lane one task.
  CHECK(std::is_same_v<warp_range_source::grant, warp_run>);
  CHECK(std::is_same_v<hybrid_task_source::grant, task_id>);
}

TEST_CASE("driver_params: one task per grab, a check every step and Any by default") {
  const driver_params p;
  CHECK(p.next_counter == nullptr);
  CHECK(p.chunk == 1);
  CHECK(p.deferral == 1);
  CHECK(p.idle_threshold == fetch_control::any().idle_threshold);
  const kernel_variant<pool_strategy::warp_range, true, 8> v;
  CHECK(v.strategy == pool_strategy::warp_range);
  CHECK(v.fifo);
  CHECK(v.period == 8);
  CHECK(kernel_variant<pool_strategy::private_pools, false>::period == default_warp_range_period);
}

TEST_CASE("the global pool allocates nothing before its first pooled launch") {
  // No CUDA call here: the test runs without a GPU, as a scheduler that only runs direct does.
  global_task_pool pool;
  CHECK_THROWS_AS((void)pool.ref(1), std::logic_error);
  CHECK_THROWS_AS((void)pool.next_counter(), std::logic_error);
}
