// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The pipeline driver on a simulated GPU: results equal the original loop whatever happens to
// the transformations (ready, late, throwing, switched off, over the memory cap). Also built with
// -fsanitize=thread (test_pipeline_tsan) to check the helper-thread handoffs.
//
// Every outcome is scripted, so every assertion is a CHECK: kernel times and the host clock are
// scripted (fake_backend.hpp), and whether a remap is ready at its chunk's launch is too. By
// default the simulated GPU is slower than the helpers: kernel c ends only once chunk c+1 has
// settled (its remap uploaded, or the chunk launched without it), so the paper's pacing, which
// launches chunk c+1 when its remap is ready or kernel c has ended, always finds the remap ready.
// A test that needs misses scripts a transformation that cannot end before its chunk was
// launched without it (it returns only once cancelled) and lets the GPU run free for that chunk.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "fake_backend.hpp"
#include "microsched/pipeline/chunk_pipeline.hpp"
#include "microsched/pipeline/key_function.hpp"
#include "microsched/pipeline/lam.hpp"
#include "microsched/pipeline/regroup.hpp"
#include "microsched/pipeline/thread_mapping.hpp"
#include "microsched/pipeline/worker_pool.hpp"

using namespace microsched::pipeline;
using testing::fake_backend;
using testing::fake_stream;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t poison = 0xDEADBEEFDEADBEEFull;

std::uint64_t element_result(std::uint32_t key, std::size_t element) {
  return std::uint64_t{key} * 2654435761u + element;
}

//! A chunk program whose "kernel" writes each element's result through the remap, like the
//! redirected kernels of the workloads (out[D[t]] = f(in[D[t]])).
struct fake_program {
  using stream = fake_backend::stream_type;
  std::size_t chunks = 12;
  std::size_t n = 4096;
  std::chrono::microseconds kernel_time{3000};  //!< scripted (the simulated GPU's clock)
  std::chrono::microseconds optimised_kernel_time{1500};
  //! When set: chunk c's kernel takes this long instead (a cold start, a stalled step).
  std::function<std::chrono::microseconds(std::size_t, bool optimised)> kernel_time_of;
  std::function<void(const transform_job&)> hook;  // may throw
  //! Chunks whose remap the simulated GPU waits for: kernel c ends only once chunk c+1 settled
  //! (remap uploaded, or chunk launched), for each chunk c+1 this returns true for. Default:
  //! every chunk (every remap is ready at its launch). Empty: the GPU never waits.
  std::function<bool(std::size_t)> gpu_waits_for = [](std::size_t) { return true; };
  //! Chunks after c that kernel c waits for: 1 for the paper's pacing (chunk c+1 is launched
  //! once kernel c ended), 2 where the driver keeps one chunk queued (whole chunks, Δ >= 2:
  //! chunk c+2 is launched once kernel c ended).
  std::size_t gpu_lead = 1;
  //! Chunks c whose remap begins only once kernel c-2 ended, so that the original kernel time is
  //! known when a profiled remap ends (a whole-chunk profile otherwise takes the speculative
  //! share from a lower bound); kernel c-2 does not wait for them.
  std::vector<std::size_t> late_remaps;
  //! When set, the transformation is LAM over keys computed by this function of (chunk, element)
  //! instead of regrouping on input[chunk].
  std::function<std::uint32_t(std::size_t, std::size_t)> key_of;
  std::vector<std::vector<std::uint32_t>> input;
  std::vector<std::uint64_t> output;
  std::vector<std::vector<index_t>> staging, device;
  std::atomic<int> prepared_slots{0};
  std::atomic<int> kernels_done{0};  //!< kernels the simulated GPU finished
  std::vector<int> done_at_launch;  //!< (chunk) kernels finished when it was launched (main thread)
  std::vector<bool> settled;        //!< (chunk) remap uploaded or chunk launched (main thread)
  std::vector<bool> submitted;      //!< (chunk) handed to the helpers (main thread)

  fake_program() {
    std::mt19937 rng(7);
    input.assign(chunks, std::vector<std::uint32_t>(n));
    for (auto& c : input)
      for (auto& v : c) v = rng() % 5;
    resize(chunks);
  }
  //! `count` chunks, the new ones with chunk 0's input; outputs poisoned again, ready for a run.
  void resize(std::size_t count) {
    chunks = count;
    input.resize(chunks, input[0]);
    output.assign(chunks * n, poison);
    settled.assign(chunks, false);
    submitted.assign(chunks, false);
  }
  //! One method, all-or-nothing (a remap of part of a chunk saves nothing), like unwrap's reorder;
  //! the driver keeps one chunk queued for depths of 2 and more (pacing.hpp: queue_ahead).
  void list_all_or_nothing(int depth) {
    listed = {{"reorder-duplication", n * sizeof(index_t), n * sizeof(index_t), /*partial=*/false}};
    gpu_lead = queue_ahead(true, depth) ? 2 : 1;
  }
  [[nodiscard]] std::size_t chunk_count() const { return chunks; }
  [[nodiscard]] std::size_t chunk_elements(std::size_t) const { return n; }
  bool costly_first = false;         // list a method no limit in the tests fits before "regroup"
  std::vector<remap_method> listed;  // when not empty: the methods listed
  [[nodiscard]] std::vector<remap_method> methods() const {
    if (!listed.empty()) return listed;
    if (costly_first)
      return {{"reorder-duplication", std::size_t{1} << 40, std::size_t{1} << 40},
              {"regroup", n * sizeof(index_t), n * sizeof(index_t)}};
    return {{"regroup", n * sizeof(index_t), n * sizeof(index_t)}};
  }
  //! When set: where to cut a chunk's pieces (weighted_pieces).
  std::function<std::vector<std::size_t>(std::size_t, int, std::size_t)> cut;
  //! Called by the driver when it hands chunk `chunk` to the helpers.
  std::vector<std::size_t> piece_bounds(std::size_t chunk, std::size_t m, int pieces,
                                        std::size_t g) {
    submitted[chunk] = true;
    return cut ? cut(m, pieces, g) : std::vector<std::size_t>{};
  }
  void prepare(int, int slots) {
    staging.assign(static_cast<std::size_t>(slots), std::vector<index_t>(n));
    device.assign(static_cast<std::size_t>(slots), std::vector<index_t>(n));
    prepared_slots = slots;
  }
  transform_outcome transform(const transform_job& job) {
    if (late(job.chunk))
      while (kernels_done.load(std::memory_order_acquire) + 1 < static_cast<int>(job.chunk) &&
             !job.cancelled())
        std::this_thread::sleep_for(50us);
    if (hook) hook(job);
    if (key_of) {
      const key_function keys =
          key_function::per_element([&](std::size_t i) { return key_of(job.chunk, i); });
      thread_local lam_workspace workspace;
      auto& out = staging[static_cast<std::size_t>(job.slot)];
      const std::span<index_t> source(out.data() + job.begin, job.end - job.begin);
      (void)lam_source(keys, job.begin, job.end, {.classes = 4}, workspace, source);
      return {};
    }
    std::span<const std::uint32_t> keys(input[job.chunk].data() + job.begin, job.end - job.begin);
    const std::vector<index_t> source = regroup(keys);
    auto& out = staging[static_cast<std::size_t>(job.slot)];
    for (std::size_t k = 0; k < source.size(); ++k)
      out[job.begin + k] = static_cast<index_t>(job.begin + source[k]);
    return {double(pure_warps(keys, identity(keys.size()))), double(pure_warps(keys, source))};
  }
  void upload(const transform_job& job, stream s) {
    s->enqueue([this, job] {
      const auto slot = static_cast<std::size_t>(job.slot);
      for (std::size_t t = job.begin; t < job.end; ++t) device[slot][t] = staging[slot][t];
    });
    if (job.end == job.transformed) settle(job.chunk);  // its last segment
  }
  //! Chunk c's remap is on the device, or c was launched.
  void settle(std::size_t c) { settled[c] = true; }
  //! Whether kernel c may end: chunks c+1..c+gpu_lead that gpu_waits_for lists and the driver
  //! handed to the helpers have settled.
  [[nodiscard]] bool may_end(std::size_t c) const {
    if (!gpu_waits_for) return true;
    for (std::size_t next = c + 1; next <= c + gpu_lead && next < chunks; ++next) {
      if (next == c + 2 && late(next)) continue;
      if (gpu_waits_for(next) && submitted[next] && !settled[next]) return false;
    }
    return true;
  }
  [[nodiscard]] bool late(std::size_t c) const {
    return std::find(late_remaps.begin(), late_remaps.end(), c) != late_remaps.end();
  }
  void note_launch(std::size_t c) {
    if (done_at_launch.size() <= c) done_at_launch.resize(c + 1, -1);
    done_at_launch[c] = kernels_done.load(std::memory_order_acquire);
    settle(c);
  }
  void launch_original(std::size_t c, stream s) {
    note_launch(c);
    s->enqueue_when([this, c] { return may_end(c); },
                    [this, c, s] {
                      // scripted time: what the events measure
                      s->advance(kernel_time_of ? kernel_time_of(c, false) : kernel_time);
                      for (std::size_t t = 0; t < n; ++t)
                        output[c * n + t] = element_result(input[c][t], t);
                      kernels_done.fetch_add(1, std::memory_order_release);
                    });
  }
  void launch_optimised(const transform_job& job, stream s) {
    note_launch(job.chunk);
    s->enqueue_when(
        [this, c = job.chunk] { return may_end(c); },
        [this, job, s] {
          s->advance(kernel_time_of ? kernel_time_of(job.chunk, true) : optimised_kernel_time);
          const auto& map = device[static_cast<std::size_t>(job.slot)];
          for (std::size_t t = 0; t < n; ++t) {
            const std::size_t e = t < job.transformed ? map[t] : t;
            output[job.chunk * n + e] = element_result(input[job.chunk][e], e);
          }
          kernels_done.fetch_add(1, std::memory_order_release);
        });
  }
  //! Every output equals the original loop's.
  [[nodiscard]] bool results_correct() const {
    for (std::size_t c = 0; c < chunks; ++c)
      for (std::size_t t = 0; t < n; ++t)
        if (output[c * n + t] != element_result(input[c][t], t)) return false;
    return true;
  }
};

static_assert(chunk_program<fake_program, fake_backend>);
static_assert(weighted_pieces<fake_program>);
static_assert(pipeline_backend<fake_backend>);

//! Arguments for a scripted run: depth Δ, no host check (the outcome must not depend on this
//! machine's load), and a launching thread that sleeps between polls, leaving the CI's few cores
//! to the helpers and the simulated GPU.
pipeline_arguments scripted(int depth) {
  pipeline_arguments args;
  args.host_check = false;
  args.depth = depth;
  args.poll_interval = 50us;
  return args;
}

static_assert(microsched::pipeline::detail::has_host_clock<fake_backend>);

//! Chunk c+1's remap returns only once its chunk was launched without it (never ready), for the
//! chunks `misses` lists; the simulated GPU does not wait for those.
void script_misses(fake_program& program, std::function<bool(std::size_t)> misses) {
  program.gpu_waits_for = [misses](std::size_t c) { return !misses(c); };
  program.hook = [misses](const transform_job& job) {
    while (misses(job.chunk) && !job.cancelled()) std::this_thread::sleep_for(50us);
  };
}

//! The remaps of `program` are ready at their launch but take `ms` of host time each (scripted
//! on the backend's host clock, shared among a chunk's pieces by their size).
void script_transform_time(fake_program& program, fake_backend& backend, double ms) {
  program.hook = [&backend, ms](const transform_job& job) {
    const double share = double(job.end - job.begin) / double(job.transformed);
    backend.advance_host(std::chrono::nanoseconds(static_cast<long long>(ms * 1e6 * share)));
  };
}

}  // namespace

TEST_CASE(
    "pipeline: every remap ready in time runs the optimised kernel; results equal the original") {
  fake_backend backend;
  fake_program program;
  chunk_pipeline pipe(backend, scripted(2));
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  CHECK(stats.method == "regroup");
  CHECK(stats.profiling == std::string("partial"));  // what the library decided, from the method
  CHECK(stats.summary().find("profiling=partial") != std::string::npos);
  CHECK(stats.slots == 3);
  CHECK(stats.host_bytes == 3 * program.n * sizeof(index_t));
  CHECK(stats.iterations[0].reason == fallback::warm_up);
  CHECK(stats.optimised_count() == program.chunks - 1);
  for (std::size_t i = 1; i < stats.iterations.size(); ++i) {  // host launch timeline
    CHECK(stats.iterations[i].launch_ms >= stats.iterations[i - 1].launch_ms);
    CHECK(stats.iterations[i].optimised);
    CHECK(stats.iterations[i].ratio > 0);
    CHECK(stats.iterations[i].metric_after >= stats.iterations[i].metric_before);
  }
  for (const auto& r : stats.iterations) CHECK(r.kernel_ms >= 0);
  // Profiling at r0 remaps a prefix of each chunk (the rest keeps its mapping), then r grows.
  CHECK(stats.iterations[1].ratio == doctest::Approx(pipeline_arguments{}.control.initial_ratio));
  CHECK(stats.iterations.back().ratio > stats.iterations[1].ratio);
}

TEST_CASE("pipeline: the reference loop with every chunk remapped equals the original") {
  fake_backend backend;
  fake_program program;
  program.gpu_waits_for = nullptr;  // one chunk at a time: nothing to wait for
  chunk_pipeline<fake_backend>::run_remapped(backend, program);
  CHECK(program.results_correct());
  program.resize(program.chunks);
  chunk_pipeline<fake_backend>::run_remapped(backend, program, 0, 0.3);  // a prefix of each
  CHECK(program.results_correct());
  CHECK_THROWS_AS(chunk_pipeline<fake_backend>::run_remapped(backend, program, 1),
                  std::invalid_argument);
  CHECK_THROWS_AS(chunk_pipeline<fake_backend>::run_remapped(backend, program, 0, 0.0),
                  std::invalid_argument);
}

TEST_CASE("pipeline: a transformation that throws leaves the original kernel and reports it") {
  fake_backend backend;
  fake_program program;
  program.hook = [](const transform_job& job) {
    if (job.chunk == 3) throw std::runtime_error("user key function failed on chunk 3");
  };
  chunk_pipeline pipe(backend, scripted(2));
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  // Kernel 2 waits for chunk 3 to settle, so chunk 3's pieces run (and throw) before its launch.
  CHECK_FALSE(stats.iterations[3].optimised);
  CHECK(stats.iterations[3].reason == fallback::transform_failed);
  CHECK(stats.iterations[3].error.find("chunk 3") != std::string::npos);
  // The failure stays with its chunk. Chunks that reuse chunk 3's slot (6, 9) may find its
  // second piece still returning from the cancelled transformation (slot_busy); all others run
  // the optimised kernel.
  for (std::size_t i = 1; i < program.chunks; ++i) {
    if (i == 3) continue;
    CAPTURE(i);
    const auto& r = stats.iterations[i];
    if (i % stats.slots == 3 % stats.slots)
      CHECK((r.optimised || r.reason == fallback::slot_busy));
    else
      CHECK(r.optimised);
  }
}

TEST_CASE("pipeline: over the memory cap nothing is remapped and the statistics say so") {
  fake_backend backend;
  fake_program program;
  auto args = scripted(2);
  args.memory_limit = program.n;  // less than one slot
  chunk_pipeline pipe(backend, args);
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  CHECK(stats.method.empty());
  CHECK(stats.profiling.empty());
  CHECK(stats.optimised_count() == 0);
  CHECK(stats.iterations[5].reason == fallback::memory_cap);
  CHECK(stats.summary().find("memory cap") != std::string::npos);
  CHECK(stats.controller_state == std::string("off"));  // not "profiling": the control never ran
  CHECK(stats.summary().find("control=off") != std::string::npos);
}

TEST_CASE(
    "pipeline: keys from a user function; one that throws leaves the original kernel running") {
  fake_backend backend;
  fake_program program;
  std::vector<std::vector<std::uint8_t>> cross(program.chunks,
                                               std::vector<std::uint8_t>(program.n));
  std::vector<std::vector<std::uint32_t>> length(program.chunks,
                                                 std::vector<std::uint32_t>(program.n));
  std::mt19937 rng(3);
  for (std::size_t c = 0; c < program.chunks; ++c)
    for (std::size_t i = 0; i < program.n; ++i) {
      cross[c][i] = static_cast<std::uint8_t>(rng() % 2);
      length[c][i] = rng() % 300;
    }
  // A key computed from two arrays; chunk 3's function throws (on an element of its first
  // piece: the profiling ratio remaps a prefix of each chunk).
  program.key_of = [&](std::size_t chunk, std::size_t i) -> std::uint32_t {
    if (chunk == 3 && i == 100) throw std::runtime_error("no key for chunk 3");
    return cross[chunk][i] ? length[chunk][i] : 0u;
  };
  chunk_pipeline pipe(backend, scripted(2));
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  CHECK(stats.iterations[3].reason == fallback::transform_failed);
  CHECK(!stats.iterations[3].optimised);
  CHECK(stats.iterations[3].error == "no key for chunk 3");
  for (std::size_t i = 1; i < program.chunks; ++i) {
    CAPTURE(i);
    if (i == 3) continue;
    if (i % stats.slots == 3 % stats.slots)
      CHECK((stats.iterations[i].optimised || stats.iterations[i].reason == fallback::slot_busy));
    else
      CHECK(stats.iterations[i].optimised);
  }
}

TEST_CASE(
    "pipeline: past the cap the next method is taken (zhang2011 5.4: job swapping after "
    "reordering)") {
  fake_backend backend;
  fake_program program;
  program.costly_first = true;
  auto args = scripted(2);
  chunk_pipeline pipe(backend, args);
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  CHECK(stats.method == "regroup");
  CHECK(stats.host_bytes + stats.device_bytes <= args.memory_limit);
  CHECK(stats.optimised_count() == program.chunks - 1);  // all but the warm-up chunk
  CHECK(stats.method_index == 1);
  CHECK(stats.method_note.find("reorder-duplication over the memory cap") != std::string::npos);
  CHECK(stats.method_note.find("took regroup") != std::string::npos);
}

TEST_CASE(
    "pipeline: one-off method bytes count against the cap; a method that fits is taken with its "
    "note") {
  // Like unwrap: reordering costs n + n bytes per slot; job swapping one-off bytes, any depth.
  fake_backend backend;
  fake_program program;
  const std::size_t n = program.n;
  program.listed = {{"reorder-duplication", n, n, false}, {"job-swapping", 0, 0, false, n / 4, n}};
  auto args = scripted(2);
  SUBCASE("room for one reordered slot: reordering, depth shrunk") {
    args.memory_limit = 2 * n;
    chunk_pipeline pipe(backend, args);
    const auto& stats = pipe.run(program);
    CHECK(stats.method == "reorder-duplication");
    CHECK(stats.method_index == 0);
    CHECK(stats.method_note.empty());
    CHECK(stats.slots == 1);
    CHECK(program.results_correct());
  }
  SUBCASE("less than one reordered slot: job swapping with every slot it wants") {
    args.memory_limit = 2 * n - 1;
    program.gpu_lead = 2;       // depth 2, whole chunks: one chunk kept queued
    program.late_remaps = {2};  // the profiled chunk
    chunk_pipeline pipe(backend, args);
    const auto& stats = pipe.run(program);
    CHECK(stats.method == "job-swapping");
    CHECK(stats.method_index == 1);
    CHECK(stats.slots == args.depth + 1);
    CHECK(stats.host_bytes == n / 4);
    CHECK(stats.device_bytes == n);
    CHECK(stats.method_note.find("needs " + std::to_string(2 * n) + " B for one slot") !=
          std::string::npos);
    CHECK(stats.summary().find("took job-swapping") != std::string::npos);
    // A whole-chunk method: chunk 1 runs the original while chunk 2 is profiled; chunks 3 and 4
    // are selected speculatively, 5 is passed over (the verdict comes too late for it), and the
    // verdict (Ttr = 0 on the scripted clock: r' = 1) selects every chunk after it.
    CHECK(stats.iterations[5].reason == fallback::chunk_share);
    CHECK(stats.optimised_count() == program.chunks - 3);
    CHECK(program.results_correct());
  }
  SUBCASE("less than the one-off bytes: nothing remapped, both methods named") {
    args.memory_limit = n + n / 4 - 1;
    chunk_pipeline pipe(backend, args);
    const auto& stats = pipe.run(program);
    CHECK(stats.method.empty());
    CHECK(stats.method_index == -1);
    CHECK(stats.method_note.find("job-swapping over the memory cap") != std::string::npos);
    CHECK(stats.iterations[3].reason == fallback::memory_cap);
    CHECK(program.results_correct());
  }
}

TEST_CASE("pipeline: a cap that fits one slot shrinks the depth instead") {
  fake_backend backend;
  fake_program program;
  auto args = scripted(2);
  args.memory_limit = 2 * program.n * sizeof(index_t) + 1;  // exactly one slot
  chunk_pipeline pipe(backend, args);
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  CHECK(stats.slots == 1);
  CHECK(stats.depth == 1);
  // One slot: chunk c+1's remap may begin only once chunk c (the slot's last user) launched, so
  // at most every second chunk has a remap ready; chunk 1's is (transformed during kernel 0).
  CHECK(stats.iterations[1].optimised);
  CHECK(stats.optimised_count() >= 1);
  for (std::size_t i = 2; i < program.chunks; ++i) {
    CAPTURE(i);
    CHECK((stats.iterations[i].optimised || stats.iterations[i].reason == fallback::slot_busy));
  }
}

TEST_CASE("pipeline: adaptive control switches off when the optimised kernel saves nothing") {
  fake_backend backend;
  fake_program program;
  program.optimised_kernel_time = program.kernel_time + 500us;  // scripted: exactly 0.5 ms slower
  chunk_pipeline pipe(backend, scripted(1));
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  CHECK(stats.controller_state == std::string("off"));
  // Chunk 1's remap is ready (kernel 0 waits for it): profiling judges its kernel time, before
  // chunk 2's launch (the profiling iteration waits for kernel 1).
  CHECK(stats.iterations[1].optimised);
  CHECK(stats.controller_reason.find("no gain") != std::string::npos);
  CHECK(stats.optimised_count() == 1);
  for (std::size_t i = 2; i < program.chunks; ++i)
    CHECK(stats.iterations[i].reason == fallback::controller_off);
}

TEST_CASE("pipeline: adaptive control switches off when the transformation cannot keep up") {
  fake_backend backend;
  fake_program program;
  program.kernel_time = 500us;
  // Scripted: a transformation that only ends once its chunk was launched without it (the
  // pipeline cancels it then), so no remap is ever ready, whatever the scheduling.
  script_misses(program, [](std::size_t) { return true; });
  auto args = scripted(1);
  args.threads_per_chunk = 1;
  chunk_pipeline pipe(backend, args);
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  CHECK(stats.controller_state == std::string("off"));
  CHECK(stats.controller_reason.find("did not finish") != std::string::npos);
  CHECK(stats.optimised_count() == 0);
  CHECK(stats.iterations[1].reason == fallback::not_ready);
  for (std::size_t i = 2; i < program.chunks; ++i)
    CHECK(stats.iterations[i].reason == fallback::controller_off);
}

TEST_CASE("pipeline: adaptive control keeps a profitable remap on") {
  fake_backend backend;
  fake_program program;
  program.resize(16);
  auto args = scripted(1);
  chunk_pipeline pipe(backend, args);
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  INFO(stats.controller_reason);
  CHECK(stats.controller_state != std::string("off"));
  CHECK(stats.optimised_count() == program.chunks - 1);
  CHECK(stats.iterations.back().ratio > args.control.initial_ratio);
  // Profiling at r0 with Ttr = 0 and Tsav = 1.5 ms of Torg = 3 ms: r' = r0 * Torg / Tsav, then
  // +ratio_step after every two successes.
  const double r0 = args.control.initial_ratio;
  CHECK(stats.iterations[2].ratio == doctest::Approx(r0));  // submitted before the verdict
  CHECK(stats.iterations[3].ratio == doctest::Approx(r0 * 3.0 / 1.5));
}

TEST_CASE("pipeline arguments are validated by name") {
  fake_backend backend;
  pipeline_arguments args;
  args.depth = 0;
  CHECK_THROWS_WITH_AS(chunk_pipeline(backend, args), doctest::Contains("depth"),
                       std::invalid_argument);
  args = {};
  args.threads_per_chunk = 0;
  CHECK_THROWS_WITH_AS(chunk_pipeline(backend, args), doctest::Contains("threads_per_chunk"),
                       std::invalid_argument);
  args = {};
  args.control.initial_ratio = 2;
  CHECK_THROWS_WITH_AS(chunk_pipeline(backend, args), doctest::Contains("initial_ratio"),
                       std::invalid_argument);
  args = {};
  args.host_min_helpers = -1;
  CHECK_THROWS_WITH_AS(chunk_pipeline(backend, args), doctest::Contains("host_min_helpers"),
                       std::invalid_argument);
  args = {};
  args.backoff_tolerance = -0.1;
  CHECK_THROWS_WITH_AS(chunk_pipeline(backend, args), doctest::Contains("backoff_tolerance"),
                       std::invalid_argument);
}

TEST_CASE("pipeline: state is reset between runs of one pipeline") {
  fake_backend backend;
  fake_program program;
  program.resize(16);
  chunk_pipeline pipe(backend, scripted(2));
  for (int run = 0; run < 2; ++run) {
    CAPTURE(run);
    program.resize(program.chunks);
    const auto& stats = pipe.run(program);
    CHECK(program.results_correct());
    CHECK(stats.optimised_count() == program.chunks - 1);
    CHECK(stats.iterations[1].ratio == doctest::Approx(pipeline_arguments{}.control.initial_ratio));
  }
}

//! Every remap misses (scripted); `attempts` profiled chunks are allowed to miss.
static void verify_profile_misses(int attempts) {
  fake_backend backend;
  fake_program program;
  program.kernel_time = 2000us;
  program.list_all_or_nothing(3);
  // Scripted: never ready (each transformation ends only once its chunk ran without it).
  std::mutex mutex;
  std::vector<std::size_t> transformed;
  program.gpu_waits_for = nullptr;
  program.hook = [&](const transform_job& job) {
    {
      const std::lock_guard lock(mutex);
      if (transformed.empty() || transformed.back() != job.chunk) transformed.push_back(job.chunk);
    }
    while (!job.cancelled()) std::this_thread::sleep_for(50us);
  };
  auto args = scripted(3);
  args.threads_per_chunk = 2;
  args.control.profile_attempts = attempts;
  chunk_pipeline pipe(backend, args);
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  CHECK(stats.controller_state == std::string("off"));
  CHECK(stats.controller_reason.find("did not finish") != std::string::npos);
  CHECK(stats.optimised_count() == 0);
  // Only the chunks profiling judges were ever handed to the helpers: chunk min(Δ, 2) = 2, then
  // (a second attempt) chunk 2 + Δ = 5, each with every kernel before it ended on the simulated
  // GPU when it was launched (chunk 2: its two kernel times; chunk 5: three).
  const std::vector<std::size_t> profiled =
      attempts == 1 ? std::vector<std::size_t>{2} : std::vector<std::size_t>{2, 5};
  std::vector<std::size_t> handed;
  for (std::size_t c = 0; c < program.chunks; ++c)
    if (program.submitted[c]) handed.push_back(c);
  CHECK(handed == profiled);
  for (const std::size_t c : transformed)
    CHECK(std::find(profiled.begin(), profiled.end(), c) != profiled.end());
  REQUIRE(program.done_at_launch.size() > 5);
  for (const std::size_t c : profiled) CHECK(program.done_at_launch[c] == static_cast<int>(c));
  CHECK(stats.iterations[1].reason == fallback::warm_up);
  for (const std::size_t c : profiled) CHECK(stats.iterations[c].reason == fallback::not_ready);
  if (attempts == 2) {
    CHECK(stats.controller_reason.find("2 profiled chunks missed") != std::string::npos);
    for (std::size_t i = 3; i < 5; ++i)
      CHECK(stats.iterations[i].reason == fallback::awaiting_profile);
  }
  for (std::size_t i = profiled.back() + 1; i < program.chunks; ++i)
    CHECK(stats.iterations[i].reason == fallback::controller_off);
}

TEST_CASE(
    "pipeline: an all-or-nothing method profiles one chunk at a time; misses switch off with no "
    "other helper work") {
  SUBCASE("the paper's single profile") {
    verify_profile_misses(1);
  }
  SUBCASE("a second profiled chunk (the default)") {
    verify_profile_misses(2);
  }
}

namespace {
//! 24 chunks, all-or-nothing, and a scripted transient: remaps of chunks before 12 never finish
//! before their chunk ran; later ones are ready at their launch.
void script_transient(fake_program& program) {
  program.resize(24);
  program.kernel_time = 2000us;
  program.list_all_or_nothing(3);
  script_misses(program, [](std::size_t c) { return c < 12; });
}
}  // namespace

TEST_CASE("pipeline: a control that switched off is re-armed once, rearm_after chunks later") {
  fake_backend backend;
  fake_program program;
  script_transient(program);
  program.late_remaps = {13};  // the profile after re-arming
  auto args = scripted(3);
  args.threads_per_chunk = 2;
  args.control.profile_attempts = 1;  // the profile at chunk 2 misses: off
  args.control.rearm_after = 8;
  chunk_pipeline pipe(backend, args);
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  INFO(stats.summary() << " " << stats.controller_reason);
  CHECK(stats.iterations[2].reason == fallback::not_ready);
  for (std::size_t i = 3; i < 11; ++i)
    CHECK(stats.iterations[i].reason == fallback::controller_off);
  // Seen off at chunk 3, re-armed at 3 + 8 = 11: chunk 13 is profiled (two kernel times), ready.
  CHECK(stats.iterations[11].reason == fallback::awaiting_profile);
  CHECK(stats.iterations[12].reason == fallback::awaiting_profile);
  CHECK(stats.controller_reason.find("re-armed at chunk 11 after: profiling") != std::string::npos);
  CHECK(stats.controller_state != std::string("off"));
  // Chunk 13 and every chunk after it: the speculative ones (Ttr = 0: share 1), then r' = 1.
  for (std::size_t i = 13; i < program.chunks; ++i) {
    CAPTURE(i);
    CHECK(stats.iterations[i].optimised);
  }
  CHECK(stats.optimised_count() == program.chunks - 13);
}

TEST_CASE(
    "pipeline: an all-or-nothing method whose remap is ready profiles one chunk, then settles") {
  fake_backend backend;
  fake_program program;
  program.resize(16);
  program.list_all_or_nothing(2);
  program.late_remaps = {2};  // the profiled chunk
  chunk_pipeline pipe(backend, scripted(2));
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  CHECK(stats.profiling == std::string("whole chunk"));
  CHECK(stats.iterations[1].reason == fallback::warm_up);  // not transformed while profiling
  CHECK(stats.iterations[2].optimised);
  CHECK(stats.iterations[2].ratio == doctest::Approx(1.0));
  // Once the profiled remap was complete (before its launch), chunks Δ+1..2Δ were considered
  // speculatively at r' = Torg / (Ttr + Torg) = 1 (Ttr = 0 on the scripted clock), rather than
  // running the original kernel while the helpers idled until the verdict.
  CHECK(stats.iterations[3].optimised);
  CHECK(stats.iterations[4].optimised);
  // Torg is the originals' time alone (scripted: 3 ms); the speculative chunks that ran
  // optimised (1.5 ms) are not originals (they would pull the mean down).
  CHECK(stats.original_ms == doctest::Approx(3.0));
  INFO(stats.controller_reason);
  // r' = Torg / (Ttr + Tsav) = 3 / 1.5: r = 1, then two successes settle it.
  CHECK(stats.controller_state == std::string("settled"));
  // Chunk 5: the verdict (kernel 2's time, which ends once chunks 3 and 4 settled) arrives at
  // iteration 4, when chunk 5 is due within one kernel time: too soon for a remap, passed over.
  CHECK(stats.iterations[5].reason == fallback::chunk_share);
  CHECK(stats.optimised_count() == program.chunks - 3);
}

TEST_CASE("worker_pool: a batch runs on every helper; spinning helpers still stop and sleep") {
  for (const auto spin : {0us, 300us}) {
    CAPTURE(spin.count());
    std::atomic<int> done{0};
    {
      worker_pool pool(3, spin);
      for (int round = 0; round < 20; ++round) {
        std::vector<std::function<void()>> batch;
        for (int k = 0; k < 6; ++k) batch.emplace_back([&] { done.fetch_add(1); });
        pool.submit(std::move(batch));
        if (round % 5 == 4) std::this_thread::sleep_for(1ms);  // let the helpers go to sleep
      }
      pool.submit([&] { done.fetch_add(1); });
      pool.wait_idle();
      CHECK(done.load() == 121);
      pool.submit(std::vector<std::function<void()>>{});  // nothing: no effect
    }                                                     // joins helpers that may be spinning
    CHECK(done.load() == 121);
  }
  CHECK_THROWS_AS(worker_pool(1, -1us), std::invalid_argument);
}

TEST_CASE(
    "pipeline: an all-or-nothing method transforms a share r of whole chunks, each on every "
    "helper") {
  fake_backend backend;
  fake_program program;
  program.resize(24);
  program.list_all_or_nothing(2);
  program.late_remaps = {2};  // the profiled chunk
  std::mutex mutex;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> pieces(program.chunks);
  // The profiled chunk's remap takes 4.5 ms of host time: r' = Torg / (Ttr + Tsav) =
  // 3 / (4.5 + 1.5) = 0.5, a share of the chunks.
  program.hook = [&](const transform_job& job) {
    {
      const std::lock_guard lock(mutex);
      pieces[job.chunk].emplace_back(job.begin, job.end);
    }
    if (job.chunk == 2) {
      const double share = double(job.end - job.begin) / double(job.transformed);
      backend.advance_host(std::chrono::nanoseconds(static_cast<long long>(4.5e6 * share)));
    }
  };
  auto args = scripted(2);
  args.threads_per_chunk = 2;
  chunk_pipeline pipe(backend, args);
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  const auto expected_pieces =
      static_cast<std::size_t>(std::max(args.threads_per_chunk, stats.helper_threads));
  CHECK(stats.iterations[0].reason == fallback::warm_up);
  std::size_t passed_over = 0;
  for (std::size_t c = 1; c < program.chunks; ++c) {
    CAPTURE(c);
    const auto& r = stats.iterations[c];
    CHECK(r.reason != fallback::not_ready);  // every selected chunk is ready
    if (!r.optimised) {
      CHECK((r.reason == fallback::chunk_share || r.reason == fallback::warm_up));
      CHECK(pieces[c].empty());
      passed_over += r.reason == fallback::chunk_share ? 1 : 0;
      continue;
    }
    CHECK(r.ratio == doctest::Approx(c <= 2 ? 1.0 : r.ratio));  // profiled at r = 1
    // Whole chunk, cut into one piece per helper (or threads_per_chunk, if more).
    auto p = pieces[c];
    std::sort(p.begin(), p.end());
    REQUIRE(p.size() == expected_pieces);
    CHECK(p.front().first == 0);
    CHECK(p.back().second == program.n);
    for (std::size_t k = 1; k < p.size(); ++k) CHECK(p[k].first == p[k - 1].second);
  }
  INFO(stats.controller_reason);
  CHECK(passed_over > 0);                // r < 1: some chunks run the original kernel by the share
  CHECK(stats.iterations[3].optimised);  // the first speculative chunk (the credit starts full)
}

TEST_CASE(
    "pipeline: a program's piece bounds cut the chunk; invalid ones fall back to equal pieces") {
  fake_backend backend;
  fake_program program;
  std::mutex mutex;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  program.hook = [&](const transform_job& job) {
    const std::lock_guard lock(mutex);
    if (job.chunk == 1) ranges.emplace_back(job.begin, job.end);
  };
  const auto args = scripted(2);
  // Chunk 1 is profiled at r0: its first m elements (whole granules) are remapped.
  const std::size_t m = partial_profiling::transformed(program.n, args.control.initial_ratio,
                                                       static_cast<std::size_t>(args.granularity));
  std::vector<std::size_t> asked;
  SUBCASE("uneven bounds, as asked") {
    program.cut = [&](std::size_t cut_m, int pieces, std::size_t g) {
      std::vector<std::size_t> b{0};
      for (int k = 1; k < pieces; ++k)
        b.push_back(static_cast<std::size_t>(k) * g);  // small pieces first
      b.push_back(cut_m);
      if (asked.empty()) asked = b;
      return b;
    };
    chunk_pipeline pipe(backend, args);
    (void)pipe.run(program);
    CHECK(program.results_correct());
    std::sort(ranges.begin(), ranges.end());
    REQUIRE(ranges.size() + 1 == asked.size());
    CHECK(asked.back() == m);
    for (std::size_t k = 0; k < ranges.size(); ++k) {
      CHECK(ranges[k].first == asked[k]);
      CHECK(ranges[k].second == asked[k + 1]);
    }
  }
  SUBCASE("a bound off the granularity: equal pieces") {
    program.cut = [&](std::size_t cut_m, int pieces, std::size_t g) {
      std::vector<std::size_t> b{0, g + 1};
      for (int k = 2; k < pieces; ++k) b.push_back(static_cast<std::size_t>(k) * g);
      b.push_back(cut_m);
      return b;
    };
    chunk_pipeline pipe(backend, args);
    (void)pipe.run(program);
    CHECK(program.results_correct());
    std::sort(ranges.begin(), ranges.end());
    REQUIRE(ranges.size() == 2);  // threads_per_chunk = 2 (regroup is a partial method)
    CHECK(ranges[0] == std::make_pair(std::size_t{0}, m / 2));
    CHECK(ranges[1] == std::make_pair(m / 2, m));
  }
  CHECK_FALSE(valid_piece_bounds({0, 10, 10, 20}, 20, 3, 1));  // empty piece
  CHECK_FALSE(valid_piece_bounds({0, 10, 20}, 21, 2, 1));      // does not end at m
  CHECK(valid_piece_bounds({0, 32, 50}, 50, 2, 32));           // the last bound need not align
}

TEST_CASE(
    "pipeline: a speculative chunk that misses while profiling is not the profile's verdict") {
  fake_backend backend;
  fake_program program;
  program.resize(16);
  program.list_all_or_nothing(3);
  program.late_remaps = {2};  // the profiled chunk
  // The profiled chunk (2) and the first speculative one (3) are ready; every later chunk's remap
  // ends only once cancelled.
  script_misses(program, [](std::size_t c) { return c > 3; });
  chunk_pipeline pipe(backend, scripted(3));
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  INFO(stats.controller_reason);
  CHECK(stats.iterations[2].optimised);
  CHECK(stats.iterations[3].optimised);
  CHECK(stats.iterations[4].reason == fallback::not_ready);
  // The verdict came from chunk 2; misses of the speculative chunks 4.. never reach the profile.
  CHECK(stats.controller_reason.find("profiling") == std::string::npos);
}

TEST_CASE(
    "pipeline: on a host whose cores are taken the run launches the original loop and says why") {
  fake_backend backend;
  fake_program program;
  std::atomic<int> transformed{0};
  program.hook = [&](const transform_job&) { transformed.fetch_add(1); };
  int runnable = 1000;  // scripted /proc/loadavg count: another process keeps every core busy
  auto args = scripted(2);
  args.host_check = true;
  args.host_runnable = [&] { return runnable; };
  chunk_pipeline pipe(backend, args);
  const auto& busy = pipe.run(program);
  CHECK(program.results_correct());
  CHECK(busy.optimised_count() == 0);
  for (const auto& r : busy.iterations) CHECK(r.reason == fallback::host_busy);
  CHECK(transformed.load() == 0);  // no helper touched a chunk
  CHECK(busy.helpers_active == 0);
  CHECK(busy.host_others >= 1000 - 1 - busy.helper_threads);
  CHECK(busy.controller_state == std::string("off"));
  INFO(busy.controller_reason);
  CHECK(busy.controller_reason.find("host busy") != std::string::npos);
  CHECK(busy.summary().find("other runnable") != std::string::npos);

  runnable = 1;  // the next run finds the cores free: pipelined again, the whole pool
  program.resize(program.chunks);
  const auto& free = pipe.run(program);
  CHECK(program.results_correct());
  CHECK(free.helpers_active == free.helper_threads);
  CHECK(free.optimised_count() == program.chunks - 1);  // all but the warm-up chunk
  CHECK(transformed.load() > 0);

  args.host_runnable = [] { return -1; };  // unknown: no limit
  chunk_pipeline unknown(backend, args);
  program.resize(program.chunks);
  CHECK(unknown.run(program).optimised_count() == program.chunks - 1);
  CHECK(unknown.statistics().host_others == -1);
}

TEST_CASE(
    "pipeline: one noisy sample of each kind (a cold first kernel, a 3x profile, a stall) keeps a "
    "paying remap on") {
  fake_backend backend;
  fake_program program;
  program.resize(24);
  program.kernel_time = 2000us;
  program.list_all_or_nothing(3);
  // Chunk 0's kernel carries a cold start (3x); the first profiled chunk's remap (2) is late (a
  // helper lost its core: it ends only once its chunk ran without it), the second profiled one
  // (5) is ready; optimised chunk 12 stalls for 20 kernel times.
  program.kernel_time_of = [](std::size_t c, bool optimised) {
    if (c == 0) return std::chrono::microseconds{6000};
    if (c == 12 && optimised) return std::chrono::microseconds{40000};
    return optimised ? std::chrono::microseconds{1500} : std::chrono::microseconds{2000};
  };
  script_misses(program, [](std::size_t c) { return c == 2; });
  program.late_remaps = {5};
  auto args = scripted(3);
  args.threads_per_chunk = 2;
  args.control.rearm_after = 0;  // no second chance beyond the control's own
  chunk_pipeline pipe(backend, args);
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  INFO(stats.summary() << " " << stats.controller_reason);
  CHECK(stats.iterations[2].reason == fallback::not_ready);
  CHECK(stats.iterations[5].optimised);
  CHECK(stats.iterations[12].optimised);
  CHECK(stats.controller_state != std::string("off"));
  CHECK(stats.original_ms == doctest::Approx(2.0));  // the cold 6 ms is not Torg
  for (std::size_t i = 13; i < program.chunks; ++i) {
    CAPTURE(i);
    CHECK(stats.iterations[i].optimised);
  }
}

TEST_CASE(
    "pipeline: a remap that truly cannot keep up is switched off within a bounded number of "
    "chunks, and the run backs off") {
  fake_backend backend;
  fake_program program;
  program.resize(24);
  program.kernel_time = 2000us;
  program.list_all_or_nothing(3);
  script_misses(program, [](std::size_t) { return true; });
  auto args = scripted(3);
  args.threads_per_chunk = 2;  // rearm_after: the default (once per run)
  chunk_pipeline pipe(backend, args);
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  INFO(stats.summary() << " " << stats.controller_reason);
  CHECK(stats.optimised_count() == 0);
  CHECK(stats.controller_state == std::string("off"));
  // Off at the second profiled chunk (2 + Δ), re-armed once 8 chunks after it was seen off, off
  // again after two more profiled chunks; every other chunk ran the original kernel.
  std::size_t profiled = 0;
  for (std::size_t c = 0; c < program.chunks; ++c) profiled += program.submitted[c] ? 1 : 0;
  CHECK(profiled == 4);
  for (std::size_t i = 6; i < 14; ++i)
    CHECK(stats.iterations[i].reason == fallback::controller_off);
  CHECK(stats.lost);
  program.resize(program.chunks);
  CHECK(pipe.run(program).iterations[0].reason == fallback::backoff);
}

TEST_CASE(
    "pipeline: a control that switched off is not re-armed while the host's cores are taken") {
  fake_backend backend;
  fake_program program;
  script_transient(program);  // the profile at chunk 2 misses (as above)
  int checks = 0;             // the run's start finds the host free, the re-arm point finds it busy
  auto args = scripted(3);
  args.host_check = true;
  args.host_runnable = [&] { return ++checks == 1 ? 1 : 1000; };
  args.threads_per_chunk = 2;
  args.control.profile_attempts = 1;
  args.control.rearm_after = 8;
  chunk_pipeline pipe(backend, args);
  const auto& stats = pipe.run(program);
  CHECK(program.results_correct());
  INFO(stats.summary() << " " << stats.controller_reason);
  CHECK(checks == 2);
  for (std::size_t i = 3; i < program.chunks; ++i)
    CHECK(stats.iterations[i].reason == fallback::controller_off);
  CHECK(stats.controller_reason.find("not re-armed: host busy") != std::string::npos);
  CHECK(stats.controller_state == std::string("off"));
}

TEST_CASE(
    "pipeline: a run slower than the original loop is followed by original loops, 1 then 2 runs") {
  fake_backend backend;
  fake_program program;
  program.resize(6);
  // Every remap is ready but takes 50 ms of host time (scripted), far longer than the kernels:
  // the pipelined run loses (5 x 50 ms against an original loop of 6 x 3 ms).
  script_transform_time(program, backend, 50);
  auto args = scripted(2);
  args.backoff_max_runs = 4;
  chunk_pipeline pipe(backend, args);
  std::vector<bool> pipelined;
  for (int run = 0; run < 5; ++run) {
    program.resize(program.chunks);
    const auto& stats = pipe.run(program);
    CHECK(program.results_correct());
    INFO("run " << run << ": " << stats.controller_reason);
    const bool backed = stats.iterations[1].reason == fallback::backoff;
    pipelined.push_back(!backed);
    if (backed) {
      CHECK(stats.optimised_count() == 0);
      CHECK(stats.controller_reason.find("backing off") != std::string::npos);
    } else {
      CHECK(stats.lost);
      CHECK(stats.run_ms > stats.original_estimate_ms);
      CHECK(stats.controller_reason.find("slower than the original loop") != std::string::npos);
    }
  }
  CHECK(pipelined == std::vector<bool>{true, false, true, false, false});
  args.backoff_max_runs = -1;
  CHECK_THROWS_AS(chunk_pipeline(backend, args), std::invalid_argument);
}

TEST_CASE(
    "pipeline: runs whose profile always misses are backed off, so its cost is paid in 1, 2, 4 ... "
    "runs") {
  fake_backend backend;
  fake_program program;
  program.resize(8);
  program.list_all_or_nothing(2);
  // Every remap ends only when cancelled: the profiles miss and the control switches off.
  script_misses(program, [](std::size_t) { return true; });
  auto args = scripted(2);
  args.control.rearm_after = 0;
  chunk_pipeline pipe(backend, args);
  std::vector<bool> pipelined;
  for (int run = 0; run < 6; ++run) {
    program.resize(program.chunks);
    const auto& stats = pipe.run(program);
    CHECK(program.results_correct());
    CHECK(stats.optimised_count() == 0);
    INFO("run " << run << ": " << stats.controller_reason);
    const bool backed = stats.iterations[0].reason == fallback::backoff;
    pipelined.push_back(!backed);
    if (backed)
      CHECK(stats.controller_reason.find("optimised no chunk") != std::string::npos);
    else
      CHECK(stats.lost);
  }
  CHECK(pipelined == std::vector<bool>{true, false, true, false, false, true});
}
