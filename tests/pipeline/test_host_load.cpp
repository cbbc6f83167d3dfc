// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The host check (host_load.hpp): reading /proc/loadavg's runnable count, the helpers a run may
// use, and the worker pool's limit on the helpers that take tasks. Also built under
// ThreadSanitizer (test_pipeline_tsan): set_active wakes and parks helpers while tasks run.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "microsched/pipeline/host_load.hpp"
#include "microsched/pipeline/worker_pool.hpp"

using namespace microsched::pipeline;
using namespace std::chrono_literals;

TEST_CASE("host load: the runnable count of a /proc/loadavg line") {
  CHECK(parse_loadavg_runnable("0.50 0.40 0.30 3/345 1234") == 3);
  CHECK(parse_loadavg_runnable("12.01 9.80 4.00 17/1021 99999\n") == 17);
  CHECK(parse_loadavg_runnable("0.00  0.00  0.00  1/80 7") == 1);  // extra spaces
  CHECK_FALSE(parse_loadavg_runnable("").has_value());
  CHECK_FALSE(parse_loadavg_runnable("0.50 0.40 0.30").has_value());
  CHECK_FALSE(parse_loadavg_runnable("0.50 0.40 0.30 x/345 1").has_value());
  CHECK_FALSE(parse_loadavg_runnable("0.50 0.40 0.30 3 1").has_value());  // no total
  CHECK_FALSE(parse_loadavg_runnable("0.50 0.40 0.30 3").has_value());    // cut short
  CHECK_FALSE(parse_loadavg_runnable("0.50 0.40 0.30 -3/345 1").has_value());
#if defined(__linux__)
  const auto here = host_runnable_threads();
  REQUIRE(here.has_value());
  CHECK(*here >= 1);  // this thread is running while it reads
#endif
}

TEST_CASE("host load: helpers take the cores left by other threads and the launching thread") {
  CHECK(helpers_for_host(16, 0, 15) == 15);  // an idle H100 host: the whole pool
  CHECK(helpers_for_host(16, 8, 15) == 7);   // 8 busy threads elsewhere
  CHECK(helpers_for_host(16, 15, 15) == 0);  // only the launching thread's core is left
  CHECK(helpers_for_host(16, 40, 15) == 0);
  CHECK(helpers_for_host(16, -2, 15) == 15);  // a count below zero means none
  CHECK(helpers_for_host(2, 0, 1) == 1);
  CHECK(helpers_for_host(64, 0, 15) == 15);  // never more than the pool
}

TEST_CASE("worker_pool: only the active helpers take tasks; raising the limit wakes the others") {
  worker_pool pool(4, 100us);
  CHECK(pool.active() == 4);
  std::mutex mutex;
  std::set<std::thread::id> seen;
  std::atomic<int> done{0};
  auto task = [&] {
    {
      const std::lock_guard lock(mutex);
      seen.insert(std::this_thread::get_id());
    }
    std::this_thread::sleep_for(200us);  // long enough that an idle helper would take the next
    done.fetch_add(1);
  };
  pool.set_active(1);
  CHECK(pool.active() == 1);
  for (int round = 0; round < 3; ++round) {
    std::vector<std::function<void()>> batch(8, task);
    pool.submit(std::move(batch));
    pool.submit(task);  // the single-task path wakes a helper that may take it
    pool.wait_idle();
  }
  CHECK(done.load() == 27);
  CHECK(seen.size() == 1);  // one helper did all of it
  pool.set_active(0);       // clamped: one helper always works, so wait_idle cannot hang
  CHECK(pool.active() == 1);
  pool.set_active(99);
  CHECK(pool.active() == 4);
  std::vector<std::function<void()>> batch(16, task);
  pool.submit(std::move(batch));
  pool.wait_idle();
  CHECK(done.load() == 43);
  CHECK(pool.awake() >= 0);
  CHECK(pool.awake() <= 4);
}
