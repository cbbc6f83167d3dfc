// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "microsched/kernel_resources.hpp"
#include "microsched/schedule/schedule_arguments.hpp"

using namespace microsched;

namespace {
std::string message_of(const schedule_arguments& args) {
  try {
    validate(args);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("invalid schedule arguments are refused with the value named") {
  schedule_arguments args;
  CHECK(message_of(args).empty());
  args.chunk = 0;
  CHECK(message_of(args).find("chunk size = 0") != std::string::npos);
  args = {};
  args.deferral = 0;  // the policy's default
  CHECK(message_of(args).empty());
  args.deferral = -1;
  CHECK(message_of(args).find("deferral = -1") != std::string::npos);
  args = {};
  args.switching.switch_every = 0;
  CHECK(message_of(args).find("switch_every = 0") != std::string::npos);
  args = {};
  args.budget = -3;
  CHECK(message_of(args).find("budget = -3") != std::string::npos);
  for (int bad : {-1, 2, 6, 16}) {
    args = {};
    args.period = bad;
    CHECK(message_of(args).find("period = " + std::to_string(bad)) != std::string::npos);
  }
  for (int good : {0, 4, 8}) {
    args = {};
    args.period = good;
    CHECK(message_of(args).empty());
  }
  args = {};
  args.blocks_per_sm = -1;
  CHECK(message_of(args).find("blocks per SM = -1") != std::string::npos);
  for (int bad : {0, 33, -5}) {
    args = {};
    args.fetch = fetch_control::ballot(bad);
    CHECK(message_of(args).find("idle threshold = " + std::to_string(bad)) != std::string::npos);
  }
  args = {};
  args.fetch = fetch_control::ballot(32);
  CHECK(message_of(args).empty());
}

TEST_CASE("fetch control text round-trips") {
  for (const auto& text : {"any", "all", "ballot:1", "ballot:32"}) {
    CHECK(to_string(parse_fetch_control(text)) == text);
  }
  CHECK_THROWS_AS((void)parse_fetch_control("ballot:0"), std::invalid_argument);
  CHECK_THROWS_AS((void)parse_fetch_control("ballot:33"), std::invalid_argument);
  CHECK_THROWS_AS((void)parse_fetch_control("ballot:"), std::invalid_argument);
  CHECK_THROWS_AS((void)parse_fetch_control("ballot:4x"), std::invalid_argument);
  CHECK_THROWS_AS((void)parse_fetch_control("sometimes"), std::invalid_argument);
  CHECK(parse_pool_strategy("local") == pool_strategy::local);
  CHECK_THROWS_AS((void)parse_pool_strategy("Hybrid!"), std::invalid_argument);
}

TEST_CASE("a strategy that does not parse is refused with the names that do") {
  std::string message;
  try {
    (void)parse_pool_strategy("global");
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  REQUIRE(message.find("expected ") != std::string::npos);
  std::string names = message.substr(message.find("expected ") + 9);
  for (std::size_t p; (p = names.find(" or ")) != std::string::npos;) names.replace(p, 4, ", ");
  int listed = 0;
  for (std::size_t start = 0; start <= names.size(); ++listed) {
    const std::size_t end = std::min(names.find(", ", start), names.size());
    const std::string name = names.substr(start, end - start);
    CAPTURE(name);
    CHECK(to_string(parse_pool_strategy(name)) == name);
    start = end + 2;
  }
  CHECK(listed == 9);  // every pool_strategy
}

TEST_CASE("should_leave applies the threshold until the pools are drained") {
  CHECK(should_leave(1, 1, false));
  CHECK_FALSE(should_leave(0, 1, false));
  CHECK_FALSE(should_leave(7, 8, false));
  CHECK(should_leave(8, 8, false));
  CHECK_FALSE(should_leave(31, 1, true));
  CHECK(should_leave(32, 1, true));
}

TEST_CASE("grid sizing follows the SM count and occupancy") {
  schedule_arguments args;
  CHECK_THROWS_AS((void)grid_blocks(args, 1000, 132, 8), std::invalid_argument);  // automatic
  args.strategy = pool_strategy::hybrid;
  CHECK(grid_blocks(args, 1000, 132, 8) == 132 * 8);
  args.blocks_per_sm = 3;
  CHECK(grid_blocks(args, 1000, 132, 8) == 132 * 3);
  args.blocks_per_sm = 9;
  CHECK_THROWS_WITH_AS((void)grid_blocks(args, 1000, 132, 8),
                       "blocks per SM = 9: at most 8 fit on one SM for this kernel",
                       std::invalid_argument);
  args.blocks_per_sm = 0;
  CHECK_THROWS_AS((void)grid_blocks(args, 1000, 132, 0), std::invalid_argument);
  // Automatic: occupancy, capped by a positive auto limit; an explicit request ignores the cap.
  CHECK(grid_blocks(args, 1000, 132, 16, 8) == 132 * 8);
  CHECK(grid_blocks(args, 1000, 132, 6, 8) == 132 * 6);
  CHECK(grid_blocks(args, 1000, 132, 16, 0) == 132 * 16);
  args.blocks_per_sm = 12;
  CHECK(grid_blocks(args, 1000, 132, 16, 8) == 132 * 12);
  args.blocks_per_sm = 0;
  args.strategy = pool_strategy::local;
  args.chunk = 7;
  for (std::uint64_t n : {0ull, 1ull, 6ull, 7ull, 8ull, 700ull}) {
    CHECK(grid_blocks(args, n, 132, 8) == (n + 6) / 7);
  }
  args.chunk = 1;
  CHECK_THROWS_AS((void)grid_blocks(args, (std::uint64_t{1} << 32) + 5, 132, 8),
                  std::invalid_argument);
  args.chunk = 4096;
  CHECK(grid_blocks(args, (std::uint64_t{1} << 32) + 5, 132, 8) == (1u << 20) + 1);
}

TEST_CASE("the direct mapping covers every task once, grid-stride beyond the launch limit") {
  CHECK(direct_blocks(0, 128) == 0);
  CHECK(direct_blocks(1, 128) == 1);
  CHECK(direct_blocks(128, 128) == 1);
  CHECK(direct_blocks(129, 128) == 2);
  CHECK(direct_blocks(std::uint64_t{1} << 40, 128) == 0x7fffffffu);
  CHECK_THROWS_AS((void)direct_blocks(10, 0), std::invalid_argument);
  CHECK(to_string(schedule_arguments{}) == "automatic");
  CHECK(parse_pool_strategy("direct") == pool_strategy::direct);
  CHECK(parse_pool_strategy("strided") == pool_strategy::strided);
  CHECK(to_string(pool_strategy::strided) == "strided");
  schedule_arguments strided;
  strided.strategy = pool_strategy::strided;
  CHECK(to_string(strided) == "strided");
  CHECK(is_direct_form(pool_strategy::direct));
  CHECK(is_direct_form(pool_strategy::strided));
  CHECK_FALSE(is_direct_form(pool_strategy::budgeted));
  CHECK(parse_pool_strategy("automatic") == pool_strategy::automatic);
}

TEST_CASE("the warp_range strategy names its refill period") {
  schedule_arguments args;
  args.strategy = pool_strategy::warp_range;
  args.chunk = 16;
  CHECK(period_of(args) == default_warp_range_period);
  CHECK(to_string(args).find("warp_range period=" + std::to_string(default_warp_range_period) +
                             " any chunk=16") == 0);
  args.period = 8;
  CHECK(period_of(args) == 8);
  CHECK(to_string(args).find("warp_range period=8 any chunk=16") == 0);
  args.strategy = pool_strategy::hybrid;  // other strategies have no period
  CHECK(to_string(args).find("period") == std::string::npos);
}

TEST_CASE("the budgeted strategy names its budget and sizes its survivor queue") {
  CHECK(parse_pool_strategy("budgeted") == pool_strategy::budgeted);
  CHECK(to_string(pool_strategy::budgeted) == "budgeted");
  schedule_arguments args;
  args.strategy = pool_strategy::budgeted;
  CHECK(to_string(args).find("budgeted budget=" + std::to_string(default_budget) + " ") == 0);
  args.budget = 128;
  CHECK(to_string(args).find("budgeted budget=128 any chunk=32") == 0);
  // An eighth of the tasks, in [65536, 2^24], never more than the tasks.
  CHECK(survivor_capacity(0) == 0);
  CHECK(survivor_capacity(1) == 1);
  CHECK(survivor_capacity(65536) == 65536);
  CHECK(survivor_capacity(100000) == 65536);
  CHECK(survivor_capacity(std::uint64_t{1} << 22) == std::uint64_t{1} << 19);
  CHECK(survivor_capacity(std::uint64_t{1} << 27) == std::uint64_t{1} << 24);
  CHECK(survivor_capacity(std::uint64_t{1} << 40) == std::uint64_t{1} << 24);
}

TEST_CASE("the automatic grid grows past its least only where lanes would hold many tasks") {
  // 132 SMs, blocks of 128, at least 4 blocks per SM, at most 8 tasks per lane.
  CHECK(auto_blocks_for_tasks(std::uint64_t{1} << 19, 132, 128, 4, 8) == 4);  // 3.9 needed
  CHECK(auto_blocks_for_tasks(512 * 512, 132, 128, 4, 8) == 4);               // 1.9: the least
  CHECK(auto_blocks_for_tasks(2048 * 2048, 132, 128, 4, 8) == 32);            // 31.03, rounded up
  CHECK(auto_blocks_for_tasks(0, 132, 128, 4, 8) == 4);
  CHECK(auto_blocks_for_tasks(std::uint64_t{1} << 62, 132, 128, 4, 8) ==
        1024);  // grid_blocks clamps
  CHECK_THROWS_AS((void)auto_blocks_for_tasks(1, 0, 128, 4, 8), std::invalid_argument);
  CHECK_THROWS_AS((void)auto_blocks_for_tasks(1, 132, 0, 4, 8), std::invalid_argument);
  CHECK_THROWS_AS((void)auto_blocks_for_tasks(1, 132, 128, 0, 8), std::invalid_argument);
  CHECK_THROWS_AS((void)auto_blocks_for_tasks(1, 132, 128, 4, 0), std::invalid_argument);
  // What fits still bounds it.
  schedule_arguments a;
  a.strategy = pool_strategy::hybrid;
  CHECK(grid_blocks(a, 2048 * 2048, 132, 5, auto_blocks_for_tasks(2048 * 2048, 132, 128, 4, 8)) ==
        5 * 132);
}

TEST_CASE("serves_as_one_block: one block per SM only where the program fits its registers") {
  kernel_resources policy;  // the driver on blocks of 128 threads
  policy.registers = 40;
  policy.threads_per_block = 128;
  policy.max_blocks_per_sm = 12;
  kernel_resources one = policy;  // the same driver on one block of 1024 threads
  one.threads_per_block = 1024;
  one.max_blocks_per_sm = 1;
  CHECK(serves_as_one_block(one, policy));
  policy.registers = 64;  // 65536 / 1024: the cap does not bind
  CHECK(serves_as_one_block(one, policy));
  policy.registers = 65;  // the cap binds: fewer registers for the same steps
  CHECK_FALSE(serves_as_one_block(one, policy));
  policy.registers = 40;
  one.local_bytes = 16;  // spills where the policy's kernel does not
  CHECK_FALSE(serves_as_one_block(one, policy));
  policy.local_bytes = 16;  // a stack frame both kernels have
  CHECK(serves_as_one_block(one, policy));
  one.max_blocks_per_sm = 0;  // no block of 1024 fits
  CHECK_FALSE(serves_as_one_block(one, policy));
  one.max_blocks_per_sm = 1;
  one.threads_per_block = 512;  // half the threads: 128 registers a thread
  policy.registers = 100;
  CHECK(serves_as_one_block(one, policy));
}

TEST_CASE("shared_bytes_for_blocks: the blocks asked for fit an SM, one more does not") {
  // Hopper: 228 KiB per SM, 227 KiB per block after opting in, 1 KiB reserved per block.
  const shared_memory_limits hopper{233472, 232448, 1024};
  const auto fits = [&](std::size_t bytes, std::size_t static_shared, std::size_t blocks) {
    return blocks * (bytes + static_shared + hopper.reserved_per_block) <= hopper.per_sm;
  };
  for (const int blocks : {1, 2, 4, 8}) {
    CAPTURE(blocks);
    const auto k = static_cast<std::size_t>(blocks);
    const std::size_t bytes = shared_bytes_for_blocks(blocks, hopper);
    REQUIRE(bytes > 0);
    CHECK(bytes % 1024 == 0);
    CHECK(fits(bytes, 0, k));
    CHECK_FALSE(fits(bytes, 0, k + 1));
    CHECK((k + 1) * bytes > hopper.per_sm);  // whatever each block reserves
  }
  CHECK(shared_bytes_for_blocks(1, hopper) == 115 * 1024);
  CHECK(shared_bytes_for_blocks(4, hopper) == 46 * 1024);
  // A kernel's own shared memory counts against the blocks that must fit.
  const std::size_t with_static = shared_bytes_for_blocks(4, hopper, 8192);
  REQUIRE(with_static > 0);
  CHECK(fits(with_static, 8192, 4));
  CHECK(shared_bytes_for_blocks(4, hopper, 12 * 1024) == 0);   // four such blocks overflow
  CHECK(shared_bytes_for_blocks(1, hopper, 200 * 1024) == 0);  // more than a block may use
  // Sixteen blocks of 15 KiB and their reserves overflow 228 KiB: no bound.
  CHECK(shared_bytes_for_blocks(16, hopper) == 0);
  // Ampere A100: 164 KiB per SM, 163 KiB per block.
  CHECK(shared_bytes_for_blocks(1, {167936, 166912, 1024}) == 83 * 1024);
  CHECK(shared_bytes_for_blocks(0, hopper) == 0);
  CHECK(shared_bytes_for_blocks(-1, hopper) == 0);
  CHECK(shared_bytes_for_blocks(1, {0, 232448, 1024}) == 0);
  CHECK(shared_bytes_for_blocks(1, {233472, 0, 1024}) == 0);
}
