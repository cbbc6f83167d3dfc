// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kernel splitting for loop-carried dependences (kernel_split.hpp): the split arithmetic, and the
// split loop on the simulated GPU against a CPU reference of the original loop. Outcomes are
// scripted: the first part's kernel ends only once the second part's remap is uploaded (or the
// second part launched without it), so a remap is always ready; a test that needs misses scripts
// a remap that only ends when cancelled. Also built with -fsanitize=thread (test_pipeline_tsan).
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include "fake_backend.hpp"
#include "microsched/pipeline/kernel_split.hpp"
#include "microsched/pipeline/regroup.hpp"
#include "microsched/pipeline/thread_mapping.hpp"

using namespace microsched::pipeline;
using testing::fake_backend;
using namespace std::chrono_literals;

TEST_CASE("split_kernel: every thread in exactly one part, the optimised part whole warps") {
  for (std::size_t n : {0ul, 1ul, 31ul, 32ul, 33ul, 1000ul, 4096ul, 4097ul, 65535ul}) {
    for (double r : {0.0, 0.01, 0.1, 0.25, 0.5, 0.7, 0.999, 1.0}) {
      for (std::size_t g : {1ul, 32ul, 128ul}) {
        CAPTURE(n);
        CAPTURE(r);
        CAPTURE(g);
        const kernel_split k = split_kernel(n, r, g);
        CHECK(k.original.begin == 0);
        CHECK(k.original.end == k.optimised.begin);  // adjacent: no thread lost or repeated
        CHECK(k.optimised.end == n);
        const std::size_t m = k.optimised.size();
        if (r >= 1.0) {
          CHECK(m == n);
        } else {
          CHECK(m % g == 0);
          CHECK(static_cast<double>(m) <= r * static_cast<double>(n) + 1e-9);
          CHECK(static_cast<double>(m) > r * static_cast<double>(n) - static_cast<double>(g));
        }
      }
    }
  }
}

TEST_CASE("split_kernel: boundaries, r = 0, r = 1 and odd sizes by hand") {
  CHECK(split_kernel(1000, 0.0).original == split_range{0, 1000});
  CHECK(split_kernel(1000, 0.0).optimised.empty());
  CHECK(split_kernel(1000, 1.0).original.empty());
  CHECK(split_kernel(1000, 1.0).optimised == split_range{0, 1000});    // r = 1 keeps the odd tail
  CHECK(split_kernel(1000, 0.5).optimised == split_range{520, 1000});  // m = ⌊500/32⌋·32 = 480
  CHECK(split_kernel(1000, 0.5, 1).optimised == split_range{500, 1000});
  CHECK(split_kernel(1001, 0.5, 1).optimised == split_range{501, 1001});  // ⌊500.5⌋
  CHECK(split_kernel(31, 0.9).optimised.empty());  // less than a warp: nothing remapped
  CHECK(split_kernel(0, 0.5).original.empty());
  CHECK_THROWS_AS(std::ignore = split_kernel(10, -0.1), std::invalid_argument);
  CHECK_THROWS_AS(std::ignore = split_kernel(10, 1.5), std::invalid_argument);
  CHECK_THROWS_AS(std::ignore = split_kernel(10, 0.5, 0), std::invalid_argument);
}

TEST_CASE("split_pieces: pieces cover the range once, inner boundaries on granules") {
  for (auto [b, e] :
       {std::pair{0ul, 0ul}, {0ul, 1ul}, {520ul, 1000ul}, {7ul, 4103ul}, {0ul, 64ul}}) {
    for (int p : {1, 2, 3, 4, 7, 64}) {
      CAPTURE(b);
      CAPTURE(e);
      CAPTURE(p);
      const auto bounds = split_pieces({b, e}, p, 32);
      REQUIRE(bounds.size() == static_cast<std::size_t>(p) + 1);
      CHECK(bounds.front() == b);
      CHECK(bounds.back() == e);
      for (std::size_t k = 1; k < bounds.size(); ++k) {
        CHECK(bounds[k - 1] <= bounds[k]);
        if (bounds[k] != e) CHECK((bounds[k] - b) % 32 == 0);
      }
    }
  }
  CHECK(split_pieces({520, 1000}, 2, 32) ==
        std::vector<std::size_t>{520, 744, 1000});  // 15 granules: 7 + 8
  CHECK_THROWS_AS(std::ignore = split_pieces({0, 10}, 0), std::invalid_argument);
}

TEST_CASE("split arguments are validated by name") {
  fake_backend backend;
  split_arguments a;
  a.ratio = 1.5;
  CHECK_THROWS_WITH_AS(split_loop(backend, a), doctest::Contains("ratio"), std::invalid_argument);
  a = {};
  a.threads = 0;
  CHECK_THROWS_WITH_AS(split_loop(backend, a), doctest::Contains("threads"), std::invalid_argument);
}

namespace {

constexpr std::uint64_t poison = 0xDEADBEEFDEADBEEFull;

//! One step of the loop-carried recurrence: element e's next state from its current one.
std::uint32_t next_state(std::uint32_t s, std::size_t iteration) {
  std::uint32_t x = s * 1664525u + 1013904223u + static_cast<std::uint32_t>(iteration);
  return x ^ (x >> 13);
}

//! A loop over one data set: iteration i reads the state iteration i-1 wrote. The remap groups
//! the threads of the second part by the state's class (regroup), like a divergent kernel would.
struct split_fake_program {
  using stream = fake_backend::stream_type;
  std::size_t iterations = 6;
  std::size_t n = 4096 + 17;                    // odd: the last warp is partial
  std::chrono::microseconds kernel_time{2000};  //!< scripted (the simulated GPU's clock)
  enum class mode { normal, throws, never_ends } transform_mode = mode::normal;
  std::vector<bool> settled;  //!< (iteration) remap uploaded or second part launched
  bool gpu_waits = true;      //!< the first part waits for the second part to settle
  std::vector<std::uint32_t> initial, state;  // state lives on the "device"
  std::vector<std::uint64_t> output;          // (iteration, element)
  std::vector<int> visits;                    // (iteration, element): threads that wrote it
  std::vector<std::uint32_t> fetched;         // host copy of the state (second part)
  std::vector<index_t> staging, device_map;
  std::atomic<int> transforms{0};

  split_fake_program() {
    std::mt19937 rng(11);
    initial.resize(n);
    for (auto& v : initial) v = rng();
    reset();
  }
  void reset() {
    state = initial;
    output.assign(iterations * n, poison);
    visits.assign(iterations * n, 0);
    fetched.assign(n, 0);
    staging.assign(n, 0);
    device_map.assign(n, 0);
    settled.assign(iterations, false);
  }
  void step(std::size_t i, std::size_t e) {
    state[e] = next_state(state[e], i);
    output[i * n + e] = std::uint64_t{state[e]} * 2654435761u + e;
    ++visits[i * n + e];
  }
  [[nodiscard]] std::size_t iteration_count() const { return iterations; }
  [[nodiscard]] std::size_t elements() const { return n; }
  void fetch(const split_job& job, stream s) {
    s->enqueue([this, job] {
      for (std::size_t e = job.range.begin; e < job.range.end; ++e) fetched[e] = state[e];
    });
  }
  transform_outcome transform(const split_job& job) {
    ++transforms;
    if (transform_mode == mode::throws) throw std::runtime_error("key function failed");
    if (transform_mode == mode::never_ends)
      while (!job.cancelled()) std::this_thread::sleep_for(50us);
    std::vector<std::uint32_t> keys(job.range.size());
    for (std::size_t k = 0; k < keys.size(); ++k) keys[k] = fetched[job.range.begin + k] % 5;
    const std::vector<index_t> source = regroup(keys);
    for (std::size_t k = 0; k < source.size(); ++k)
      staging[job.range.begin + k] = static_cast<index_t>(job.range.begin + source[k]);
    return {double(pure_warps(keys, identity(keys.size()))), double(pure_warps(keys, source))};
  }
  void upload(const split_job& job, stream s) {
    s->enqueue([this, job] {
      for (std::size_t e = job.range.begin; e < job.range.end; ++e) device_map[e] = staging[e];
    });
    settled[job.iteration] = true;
  }
  //! The first part of a split iteration (an original launch on [0, e) with e < n) ends only
  //! once the second part settled, unless its remap never ends (never_ends).
  void launch_original(std::size_t i, split_range range, stream s) {
    const bool first_part = range.begin == 0 && range.end < n;
    if (!first_part) settled[i] = true;
    const bool gated = gpu_waits && first_part && transform_mode != mode::never_ends;
    s->enqueue_when([this, i, gated] { return !gated || settled[i]; },
                    [this, i, range, s] {
                      s->advance(kernel_time);
                      for (std::size_t e = range.begin; e < range.end; ++e) step(i, e);
                    });
  }
  void launch_optimised(const split_job& job, stream s) {
    settled[job.iteration] = true;
    s->enqueue([this, job, s] {
      s->advance(kernel_time / 2);
      for (std::size_t t = job.range.begin; t < job.range.end; ++t)
        step(job.iteration, device_map[t]);
    });
  }
  //! The original loop on the CPU, compared with what the split loop left.
  [[nodiscard]] bool results_correct() const {
    std::vector<std::uint32_t> s = initial;
    for (std::size_t i = 0; i < iterations; ++i)
      for (std::size_t e = 0; e < n; ++e) {
        s[e] = next_state(s[e], i);
        if (output[i * n + e] != std::uint64_t{s[e]} * 2654435761u + e) return false;
        if (visits[i * n + e] != 1) return false;  // every thread exactly once per iteration
      }
    return s == state;
  }
};

static_assert(split_program<split_fake_program, fake_backend>);

split_arguments split_args(double r) {
  split_arguments a;
  a.ratio = r;
  a.threads = 2;
  a.poll_interval = 50us;
  return a;
}

}  // namespace

TEST_CASE("split loop: the original loop on the simulated GPU is the reference") {
  fake_backend backend;
  split_fake_program program;
  split_loop<fake_backend>::run_original(backend, program);
  CHECK(program.results_correct());
}

TEST_CASE("split loop: remaps ready while the first part runs give the original loop's results") {
  for (double r : {0.0, 0.1, 0.3, 0.5, 0.9}) {
    CAPTURE(r);
    fake_backend backend;
    split_fake_program program;
    split_loop loop(backend, split_args(r));
    const auto& stats = loop.run(program);
    CHECK(program.results_correct());
    const bool remapped = !split_kernel(program.n, r).optimised.empty();
    CHECK(stats.optimised_count() == (remapped ? program.iterations : 0));
    if (remapped) {
      CHECK(stats.iterations[2].metric_after >= stats.iterations[2].metric_before);  // pure warps
      CHECK(stats.iterations[2].ratio > 0);
    }
  }
}

TEST_CASE("split loop: r = 1 leaves no first part to overlap; the results stay correct") {
  fake_backend backend;
  split_fake_program program;
  split_loop loop(backend, split_args(1.0));
  (void)loop.run(program);
  CHECK(program.results_correct());
}

TEST_CASE("split loop: the reference loop with every second part remapped equals the original") {
  for (double r : {0.0, 0.5, 1.0}) {
    CAPTURE(r);
    fake_backend backend;
    split_fake_program program;
    program.gpu_waits = false;  // one step at a time: nothing to wait for
    split_loop<fake_backend>::run_remapped(backend, program, r);
    CHECK(program.results_correct());
  }
}

TEST_CASE("split loop: a remap that never ends in time runs the original kernel on the rest") {
  fake_backend backend;
  split_fake_program program;
  program.transform_mode = split_fake_program::mode::never_ends;
  auto args = split_args(0.5);
  args.give_up_after = 0;  // keep splitting
  split_loop loop(backend, args);
  const auto& stats = loop.run(program);
  CHECK(program.results_correct());
  CHECK(stats.optimised_count() == 0);
  CHECK(stats.iterations[0].reason == fallback::not_ready);
  // Later iterations: not ready, or unsplit while the cancelled remap was still returning.
  for (const auto& r : stats.iterations)
    CHECK((r.reason == fallback::not_ready || r.reason == fallback::slot_busy));
  CHECK(stats.controller_state == std::string("fixed"));
}

TEST_CASE("split loop: automatic shut-down after consecutive misses, then the original loop") {
  fake_backend backend;
  split_fake_program program;
  program.transform_mode = split_fake_program::mode::never_ends;
  split_loop loop(backend, split_args(0.5));  // give_up_after = 2
  const auto& stats = loop.run(program);
  CHECK(program.results_correct());
  CHECK(stats.optimised_count() == 0);
  CHECK(stats.iterations[0].reason == fallback::not_ready);
  for (std::size_t i = 2; i < stats.iterations.size(); ++i) {
    CHECK(stats.iterations[i].reason == fallback::controller_off);
    CHECK(stats.iterations[i].ratio == 0);  // unsplit: nothing remapped
  }
  CHECK(stats.controller_state == std::string("off"));
  CHECK(stats.summary().find("control=off (remap missed 2") != std::string::npos);
}

TEST_CASE("split loop: r = 0 says the control is off") {
  fake_backend backend;
  split_fake_program program;
  split_loop loop(backend, split_args(0.0));
  const auto& stats = loop.run(program);
  CHECK(program.results_correct());
  CHECK(stats.summary().find("control=off (r = 0") != std::string::npos);
}

TEST_CASE("split loop: a transformation that throws leaves the original kernel and reports it") {
  fake_backend backend;
  split_fake_program program;
  program.transform_mode = split_fake_program::mode::throws;
  split_loop loop(backend, split_args(0.5));
  const auto& stats = loop.run(program);
  CHECK(program.results_correct());
  CHECK(stats.optimised_count() == 0);
  CHECK(stats.iterations[0].reason == fallback::transform_failed);
  CHECK(stats.iterations[0].error == "key function failed");
  CHECK(stats.controller_state == std::string("off"));  // misses: failed, then failed or busy
  program.reset();  // the loop can run again on the same helpers
  program.transform_mode = split_fake_program::mode::normal;
  CHECK(loop.run(program).optimised_count() == program.iterations);
  CHECK(program.results_correct());
}
