// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device tests: every strategy x fetch control x chunk size processes every task exactly once
// and reproduces the vanilla kernel's outputs bit for bit (same step code).
#include <doctest/doctest.h>

#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "collatz/collatz_workload.hpp"
#include "julia/julia_workload.hpp"
#include "montecarlo/montecarlo_workload.hpp"
#include "pathtrace/pathtrace_workload.hpp"
#include "walk/walk_workload.hpp"
#include "workload.hpp"

using namespace microsched;
using namespace microsched::workloads;

namespace {

void verify_all_schedules(workload& w) {
  for (const auto strategy : {pool_strategy::local, pool_strategy::private_pools,
                              pool_strategy::hybrid, pool_strategy::warp_range}) {
    for (const auto fetch :
         {fetch_control::any(), fetch_control::all(), fetch_control::ballot(8)}) {
      for (const std::uint64_t chunk : {1, 2, 7, 32, 1000}) {
        // warp_range lanes refill every 4 or every 8 steps; the other strategies have no period.
        for (const int period : {4, 8}) {
          if (period == 8 && strategy != pool_strategy::warp_range) continue;
          schedule_arguments args;
          args.strategy = strategy;
          args.fetch = fetch;
          args.chunk = chunk;
          args.deferral = chunk == 7 ? 3 : 8;
          args.period = period;
          CAPTURE(to_string(args));
          CAPTURE(w.describe());
          const verification_report r = w.verify_scheduled(args);
          CAPTURE(r.detail);
          CHECK(r.missing == 0);
          CHECK(r.duplicated == 0);
          CHECK(r.mismatched == 0);
          CHECK(r.passed);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("julia: every schedule processes each pixel once, equal to vanilla") {
  for (const char* precision : {"float", "double"}) {
    auto w = make_workload("julia", {{"width", "61"},
                                     {"height", "37"},
                                     {"crunch", "300"},
                                     {"offset", "0.5"},
                                     {"precision", precision}});
    verify_all_schedules(*w);
  }
}

TEST_CASE("montecarlo: every schedule processes each task once, equal to vanilla") {
  for (const char* tasks : {"1", "31", "32", "33", "2500"}) {
    auto w = make_workload("montecarlo", {{"tasks", tasks}, {"kill", "0.05"}});
    verify_all_schedules(*w);
  }
}

TEST_CASE("explicit blocks per SM: the policy's blocks process each task once") {
  // The automatic grid runs the persistent strategies as one block of 1024 threads per SM (the
  // tests above); an explicit value keeps the policy's blocks of 128.
  std::vector<std::unique_ptr<workload>> loads;
  loads.push_back(make_workload("julia", {{"width", "61"},
                                          {"height", "37"},
                                          {"crunch", "300"},
                                          {"offset", "0.5"},
                                          {"precision", "float"}}));
  loads.push_back(make_workload("montecarlo", {{"tasks", "2500"}, {"kill", "0.05"}}));
  for (auto& w : loads) {
    for (const auto strategy :
         {pool_strategy::private_pools, pool_strategy::hybrid, pool_strategy::warp_range}) {
      for (const auto fetch : {fetch_control::any(), fetch_control::ballot(4)}) {
        for (const std::uint64_t chunk : {1, 32}) {
          schedule_arguments args;
          args.strategy = strategy;
          args.fetch = fetch;
          args.chunk = chunk;
          args.deferral = 8;
          args.blocks_per_sm = 4;
          CAPTURE(to_string(args));
          CAPTURE(w->describe());
          const verification_report r = w->verify_scheduled(args);
          CAPTURE(r.detail);
          CHECK(r.passed);
        }
      }
    }
  }
}

TEST_CASE("budgeted: every budget processes each task once, saved or run to its end") {
  // Budget 1 saves most tasks; 2^20 + 7 Monte Carlo walks at budget 1 leave about 850 000
  // survivors for a queue of 131 072 (survivor_capacity), so the rest run on in the direct pass.
  // The automatic grid resumes the survivors in one block of 1024 threads per SM, explicit
  // blocks per SM in the policy's blocks: both launches are checked.
  auto julia = make_workload("julia", {{"width", "61"},
                                       {"height", "37"},
                                       {"crunch", "300"},
                                       {"offset", "0.5"},
                                       {"precision", "double"}});
  std::vector<std::unique_ptr<workload>> loads;
  loads.push_back(std::move(julia));
  for (const char* tasks : {"1", "31", "33", "2500", "1048583"})
    loads.push_back(make_workload("montecarlo", {{"tasks", tasks}, {"kill", "0.05"}}));
  for (auto& w : loads) {
    for (const int budget : {1, 3, 64}) {
      for (const auto fetch : {fetch_control::any(), fetch_control::ballot(4)}) {
        for (const std::uint64_t chunk : {1, 32}) {
          for (const int blocks_per_sm : {0, 4}) {
            schedule_arguments args;
            args.strategy = pool_strategy::budgeted;
            args.budget = budget;
            args.fetch = fetch;
            args.chunk = chunk;
            args.blocks_per_sm = blocks_per_sm;
            CAPTURE(to_string(args));
            CAPTURE(w->describe());
            const verification_report r = w->verify_scheduled(args);
            CAPTURE(r.detail);
            CHECK(r.missing == 0);
            CHECK(r.duplicated == 0);
            CHECK(r.mismatched == 0);
            CHECK(r.passed);
          }
        }
      }
    }
  }
}

TEST_CASE("the direct mapping in both forms and the automatic schedule process each task once") {
  // Automatic: successive checks of one size class run the calibration's candidates in turn
  // (each a complete run), then the chosen one.
  for (const char* tasks : {"1", "31", "33", "1048583"}) {
    auto w = make_workload("montecarlo", {{"tasks", tasks}, {"kill", "0.05"}});
    for (const auto strategy :
         {pool_strategy::direct, pool_strategy::strided, pool_strategy::automatic}) {
      for (int repeat = 0; repeat < (strategy == pool_strategy::automatic ? 8 : 1); ++repeat) {
        schedule_arguments args;
        args.strategy = strategy;
        CAPTURE(to_string(args));
        CAPTURE(w->describe());
        CAPTURE(repeat);
        const verification_report r = w->verify_scheduled(args);
        CAPTURE(r.detail);
        CHECK(r.passed);
      }
    }
  }
}

TEST_CASE("julia: the escaping views and any c, each pixel once, equal to vanilla") {
  for (const char* precision : {"float", "double"}) {
    for (const char* view : {"seahorse", "dust", "neck"}) {
      auto w = make_workload("julia", {{"width", "67"},
                                       {"height", "33"},
                                       {"crunch", "3000"},
                                       {"view", view},
                                       {"precision", precision}});
      verify_all_schedules(*w);
    }
    auto w = make_workload("julia", {{"width", "40"},
                                     {"height", "41"},
                                     {"crunch", "500"},
                                     {"c", "0.285,0.01"},
                                     {"offset", "1.5"},
                                     {"precision", precision}});
    verify_all_schedules(*w);
  }
}

TEST_CASE("julia: the host's task lengths are the kernels' iteration counts") {
  for (const char* precision : {"float", "double"}) {
    for (const char* view : {"seahorse", "dust", "neck", "islands"}) {
      CAPTURE(view);
      CAPTURE(precision);
      const auto settings = parse_julia_settings(
          {{"width", "256"}, {"height", "192"}, {"view", view}, {"precision", precision}});
      auto w = make_julia_workload(settings);
      const auto device = w->render_scheduled(schedule_arguments{});
      const auto host = julia_task_lengths(settings);
      REQUIRE(device.size() == host.size());
      std::size_t differ = 0;
      for (std::size_t i = 0; i < host.size(); ++i) differ += device[i] != host[i];
      CHECK(differ == 0);
      CHECK(w->total_steps() == std::accumulate(host.begin(), host.end(), std::uint64_t{0}));
    }
  }
}

TEST_CASE("collatz: every schedule processes each start once, equal to vanilla and the host") {
  for (const char* tasks : {"1", "31", "33", "2500"}) {
    auto w = make_workload("collatz", {{"tasks", tasks}, {"first", "4294967291"}});
    verify_all_schedules(*w);
  }
  // The starts just below the 64-bit bound, whose orbits climb highest.
  const collatz_settings top{1000, 12327829502ull - 999};
  const auto host = collatz_task_lengths(top);
  auto w = make_collatz_workload(top);
  CHECK(w->total_steps() == std::accumulate(host.begin(), host.end(), std::uint64_t{0}));
  schedule_arguments args;
  args.chunk = 7;
  CHECK(w->verify_scheduled(args).passed);
}

TEST_CASE("walk: every schedule processes each walk once, equal to vanilla and the host") {
  for (const char* tasks : {"1", "31", "33", "2500"}) {
    auto w = make_workload("walk", {{"tasks", tasks}, {"half-width", "3"}});
    verify_all_schedules(*w);
  }
  // 2^20 + 7 walks under the automatic schedule and the warp_range strategy, whose lanes take their
  // next walk within the deferral; the steps equal the host's.
  const walk_settings s{(1u << 20) + 7, 4, 11};
  const auto host = walk_task_lengths(s);
  auto w = make_walk_workload(s);
  CHECK(w->total_steps() == std::accumulate(host.begin(), host.end(), std::uint64_t{0}));
  CHECK(w->verify_scheduled(schedule_arguments{}).passed);
  schedule_arguments stream;
  stream.strategy = pool_strategy::warp_range;
  stream.chunk = 16;
  stream.deferral = 16;
  CHECK(w->verify_scheduled(stream).passed);
  stream.period = 8;
  CHECK(w->verify_scheduled(stream).passed);
}

TEST_CASE("pathtrace: every schedule traces each path once, equal to vanilla") {
  for (const char* width : {"1", "31", "33", "2500"}) {
    auto w = make_workload("pathtrace", {{"width", width}, {"height", "1"}, {"spp", "1"}});
    verify_all_schedules(*w);
  }
  // 2^20 + 7 paths of 104-byte contexts under the automatic schedule and the budgeted strategy,
  // which saves the contexts of the paths still going after its budget.
  auto w = make_workload("pathtrace", {{"width", "1048583"}, {"height", "1"}, {"spp", "1"}});
  CHECK(w->verify_scheduled(schedule_arguments{}).passed);
  schedule_arguments budgeted;
  budgeted.strategy = pool_strategy::budgeted;
  budgeted.budget = 2;
  CHECK(w->verify_scheduled(budgeted).passed);
}

TEST_CASE("deferral and blocks per SM do not change results") {
  auto w = make_workload("julia", {{"width", "128"}, {"height", "64"}, {"crunch", "500"}});
  for (int deferral : {1, 2, 5, 64}) {
    for (int blocks_per_sm : {0, 1, 2}) {
      schedule_arguments args;
      args.strategy = pool_strategy::hybrid;
      args.deferral = deferral;
      args.blocks_per_sm = blocks_per_sm;
      CAPTURE(to_string(args));
      CHECK(w->verify_scheduled(args).passed);
    }
  }
}

TEST_CASE("a schedule that cannot launch is refused with the value named") {
  auto w = make_workload("montecarlo", {{"tasks", "100"}});
  schedule_arguments args;
  args.strategy = pool_strategy::hybrid;
  args.blocks_per_sm = 1000;
  CHECK_THROWS_WITH_AS((void)w->time_scheduled(args, {}), doctest::Contains("blocks per SM = 1000"),
                       std::invalid_argument);
  args = {};
  args.chunk = 0;
  CHECK_THROWS_WITH_AS((void)w->verify_scheduled(args), doctest::Contains("chunk size = 0"),
                       std::invalid_argument);
}

TEST_CASE("the floor runs the mean number of steps") {
  auto w = make_workload("montecarlo", {{"tasks", "4096"}, {"kill", "0.1"}});
  const double mean = static_cast<double>(w->total_steps()) / 4096.0;
  // A step draws four numbers: P(step ends task) = 1 - 0.9^4, so the mean is 1 / 0.3439 = 2.91.
  CHECK(mean > 2.7);
  CHECK(mean < 3.1);
  const auto t = w->time_floor({1, 3});
  CHECK(t.median_ms > 0);
}
