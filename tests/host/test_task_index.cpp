// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// fast_divmod against the hardware division for every width, edge divisors and dividends; the
// 2-D and 3-D task index helpers against the arithmetic they replace; bad extents refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "microsched/index/task_index.hpp"

using namespace microsched;

namespace {
template <class U>
void verify_divisor(U d, std::mt19937_64& rng) {
  const fast_divmod<U> f(d);
  const U max = std::numeric_limits<U>::max();
  std::vector<U> ns = {0,
                       1,
                       static_cast<U>(d - 1),
                       d,
                       static_cast<U>(d + 1),
                       max,
                       static_cast<U>(max - 1),
                       static_cast<U>(max / d * d),
                       static_cast<U>(max / d * d - 1)};
  for (int i = 0; i < 200; ++i) ns.push_back(static_cast<U>(rng()));
  for (const U n : ns) {
    U q = 0, r = 0;
    f.divmod(n, q, r);
    if (q != n / d || r != n % d) {
      FAIL_CHECK("divisor " << static_cast<std::uint64_t>(d) << ", dividend "
                            << static_cast<std::uint64_t>(n) << ": got "
                            << static_cast<std::uint64_t>(q));
      return;
    }
  }
}
}  // namespace

TEST_CASE("fast_divmod equals division for 32- and 64-bit dividends") {
  std::mt19937_64 rng(42);
  for (std::uint64_t d = 1; d <= 2000; ++d) {
    verify_divisor<std::uint32_t>(static_cast<std::uint32_t>(d), rng);
    verify_divisor<std::uint64_t>(d, rng);
  }
  for (const std::uint32_t d : {0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu,
                                4096u, 4097u, 2048u * 2048u, 1000003u}) {
    verify_divisor<std::uint32_t>(d, rng);
  }
  for (const std::uint64_t d :
       {std::uint64_t{1} << 32, (std::uint64_t{1} << 32) + 1, std::uint64_t{1} << 63,
        (std::uint64_t{1} << 63) + 1, ~std::uint64_t{0}, std::uint64_t{4096} * 4096 * 4096}) {
    verify_divisor<std::uint64_t>(d, rng);
  }
  for (int i = 0; i < 2000; ++i) {
    verify_divisor<std::uint32_t>(static_cast<std::uint32_t>(rng() | 1u), rng);
    verify_divisor<std::uint64_t>(std::max<std::uint64_t>(1, rng() >> (rng() % 64)), rng);
  }
  CHECK_THROWS_AS(fast_divmod<std::uint32_t>(0), std::invalid_argument);
}

TEST_CASE("task_index_2d and 3d split row-major ids") {
  const task_index_2d index(61, 37);
  for (task_id t = 0; t < 61 * 37; ++t) {
    const coord_2d c = index(t);
    REQUIRE(c.x == t % 61);
    REQUIRE(c.y == t / 61);
  }
  const task_index_2d big(65536, 65535);  // the largest 2-D problem under 2^32 tasks
  const coord_2d last = big(task_id{65536} * 65535 - 1);
  CHECK(last.x == 65535);
  CHECK(last.y == 65534);
  const task_index_3d cube(7, 5, 3);
  for (task_id t = 0; t < 7 * 5 * 3; ++t) {
    const coord_3d c = cube(t);
    REQUIRE(c.x == t % 7);
    REQUIRE(c.y == (t / 7) % 5);
    REQUIRE(c.z == t / 35);
  }
  CHECK_THROWS_WITH_AS(task_index_2d(0, 5), "task_index_2d: extent 0 x 5: both must be at least 1",
                       std::invalid_argument);
  CHECK_THROWS_AS(task_index_2d(65536, 65536), std::invalid_argument);  // 2^32 tasks
  CHECK_THROWS_AS(task_index_3d(1024, 1024, 4096), std::invalid_argument);
  CHECK_THROWS_AS(task_index_3d(1, 0, 1), std::invalid_argument);
}
