// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device suites (label gpu): the remapped kernels on every chunk (run_remapped), and the pipelined
// program, whatever it chooses per chunk, write exactly the outputs of the original loop (same
// per-element code; outputs poisoned before each run).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <vector>

#include "microsched/pipeline/chunk_pipeline.hpp"
#include "microsched/pipeline/cuda_backend.hpp"
#include "pipeline_workloads.hpp"

using namespace microsched::pipeline;
using namespace microsched::pipeline::workloads;

namespace {

std::vector<std::uint32_t> original_outputs(program_base& program) {
  cuda_backend backend;
  any_program p{program};
  program.poison_outputs();
  chunk_pipeline<cuda_backend>::run_original(backend, p);
  return program.outputs();
}

std::size_t mismatches(const std::vector<std::uint32_t>& result,
                       const std::vector<std::uint32_t>& reference) {
  REQUIRE(result.size() == reference.size());
  std::size_t mismatched = 0;
  for (std::size_t i = 0; i < result.size(); ++i) mismatched += result[i] != reference[i] ? 1 : 0;
  return mismatched;
}

//! Every chunk through method `method`'s remapped kernel (a share `ratio` of each chunk for a
//! partial method), against the original loop.
void verify_remapped_equal_to_original(program_base& program, int method, double ratio = 1.0) {
  const auto reference = original_outputs(program);
  cuda_backend backend;
  any_program p{program};
  program.poison_outputs();
  chunk_pipeline<cuda_backend>::run_remapped(backend, p, method, ratio);
  INFO(program.describe() << " | method " << method << " r=" << ratio);
  CHECK(mismatches(program.outputs(), reference) == 0);
}

//! The pipelined loop, whatever it runs per chunk, against the original loop.
pipeline_statistics verify_equal_to_original(program_base& program, pipeline_arguments args) {
  const auto reference = original_outputs(program);
  cuda_backend backend;
  any_program p{program};
  program.poison_outputs();
  chunk_pipeline pipe(backend, args);
  const auto& stats = pipe.run(p);
  INFO(program.describe() << " | " << stats.summary());
  CHECK(mismatches(program.outputs(), reference) == 0);
  return stats;
}

pipeline_arguments pipelined() {
  pipeline_arguments args;
  args.host_check = false;  // a pipelined run whatever this host's load
  args.depth = 2;
  args.threads_per_chunk = 4;
  return args;
}

}  // namespace

TEST_CASE("gafort: LAM-redirected kernel equals the original") {
  auto program = make_gafort({.chunks = 6, .elements = 1 << 16, .max_trips = 512});
  verify_remapped_equal_to_original(*program, 0);
  verify_remapped_equal_to_original(*program, 0, 0.5);  // a prefix remapped, the rest as before
  verify_equal_to_original(*program, pipelined());
  auto paper =
      make_gafort({.chunks = 4, .elements = 1 << 16, .max_trips = 512, .fill_quotas = false});
  verify_remapped_equal_to_original(*paper, 0);
}

TEST_CASE("unwrap: reordered kernel equals the original") {
  auto program = make_unwrap(
      {.chunks = 6, .frames = 2, .width = 1024, .height = 768, .radii = 128, .angles = 512});
  verify_remapped_equal_to_original(*program, 0);
  verify_equal_to_original(*program, pipelined());  // a share of whole frames, loss guard
  // A sample count that is not a multiple of 4 takes the one-sample-per-thread kernel.
  auto odd = make_unwrap(
      {.chunks = 4, .frames = 2, .width = 640, .height = 480, .radii = 129, .angles = 511});
  verify_remapped_equal_to_original(*odd, 0);
  // Without gather plans every piece follows the block plan: the same outputs.
  auto unplanned = make_unwrap({.chunks = 6,
                                .frames = 2,
                                .width = 1024,
                                .height = 768,
                                .radii = 128,
                                .angles = 512,
                                .plan_cache = 0});
  verify_remapped_equal_to_original(*unplanned, 0);
  // Pieces of equal size instead of equal cost: the same outputs.
  auto equal = make_unwrap({.chunks = 6,
                            .frames = 2,
                            .width = 1024,
                            .height = 768,
                            .radii = 128,
                            .angles = 512,
                            .weighted_pieces = false});
  verify_equal_to_original(*equal, pipelined());
}

TEST_CASE("unwrap: past the memory cap the job-swapped kernel runs and equals the original") {
  // One reordered slot (n host + n device bytes) does not fit 100 kB; job swapping (one byte per
  // sample on the device, a 16 kB host buffer) does. The odd shape has partial tiles.
  for (const unwrap_options& o :
       {unwrap_options{
            .chunks = 6, .frames = 2, .width = 1024, .height = 768, .radii = 128, .angles = 512},
        unwrap_options{
            .chunks = 4, .frames = 2, .width = 640, .height = 480, .radii = 129, .angles = 511}}) {
    auto program = make_unwrap(o);
    verify_remapped_equal_to_original(*program, 1);  // job swapping on every frame
    for (pipeline_arguments args : {pipelined(), pipeline_arguments{}}) {
      args.memory_limit = 100000;
      const pipeline_statistics stats = verify_equal_to_original(*program, args);
      CHECK(stats.method == "job-swapping");
      CHECK(stats.method_index == 1);
      CHECK(stats.method_note.find("reorder-duplication over the memory cap") != std::string::npos);
      CHECK(stats.summary().find("took job-swapping") != std::string::npos);
      CHECK(stats.host_bytes + stats.device_bytes <= args.memory_limit);
      for (const iteration_record& r : stats.iterations)
        if (r.optimised) CHECK(r.metric_after <= r.metric_before);  // sectors of img[P]
    }
  }
}

TEST_CASE("blackscholes: redirected kernel equals the original, adaptive control included") {
  auto program = make_blackscholes({.chunks = 8, .elements = 1 << 16, .regions = 3});
  verify_remapped_equal_to_original(*program, 0);
  verify_equal_to_original(*program, pipeline_arguments{});
}

TEST_CASE("documentation example: the same loop before and after the pipeline") {
  auto workload = make_gafort({.chunks = 8, .elements = 1 << 16, .max_trips = 512});
  any_program program{*workload};
  cuda_backend backend;
  // example-begin loop-before
  // The original program: one kernel per chunk, queued on one stream.
  for (std::size_t chunk = 0; chunk < program.chunk_count(); ++chunk)
    program.launch_original(chunk, backend.compute_stream());
  backend.synchronize();
  // example-end loop-before
  const auto reference = workload->outputs();
  workload->poison_outputs();
  // example-begin loop-after
  // The same loop through the pipeline: helper threads remap chunk i+depth while the GPU runs
  // chunk i; a chunk whose remap is not ready in time runs the original kernel.
  pipeline_arguments args;
  args.host_check = false;             // optimised chunks whatever this host's load
  args.depth = 2;                      // chunks transformed ahead of the GPU
  args.threads_per_chunk = 4;          // helper threads per chunk
  args.memory_limit = 64u << 20;       // host + device bytes the pipeline may add
  chunk_pipeline pipe(backend, args);  // adaptive control on by default
  const pipeline_statistics& stats = pipe.run(program);
  stats.print(std::cout);  // per iteration: kernel used, r, s, times, fallbacks
  // example-end loop-after
  CHECK(workload->outputs() == reference);
}

namespace {

//! The original loop's outputs from a fresh population; the population is fresh again after.
std::vector<std::uint32_t> original_outputs(cuda_backend& backend, split_program_base& program) {
  any_split_program p{program};
  program.reset();
  split_loop<cuda_backend>::run_original(backend, p);
  auto reference = program.outputs();
  program.reset();
  return reference;
}

//! The split loop against the original loop on the same population: every iteration's outputs
//! and the final population bit-exact (outputs poisoned before each run).
void verify_split_equal_to_original(split_program_base& program, const split_arguments& args) {
  cuda_backend backend;
  const auto reference = original_outputs(backend, program);
  any_split_program p{program};
  split_loop loop(backend, args);
  const auto& stats = loop.run(p);
  const auto result = program.outputs();
  INFO(program.describe() << " r=" << args.ratio << " | " << stats.summary());
  REQUIRE(result.size() == reference.size());
  std::size_t mismatched = 0;
  for (std::size_t i = 0; i < result.size(); ++i) mismatched += result[i] != reference[i] ? 1 : 0;
  CHECK(mismatched == 0);
}

//! Every iteration's second part through the remapped kernel, against the original loop.
void verify_split_remapped_equal_to_original(split_program_base& program, double ratio) {
  cuda_backend backend;
  const auto reference = original_outputs(backend, program);
  any_split_program p{program};
  split_loop<cuda_backend>::run_remapped(backend, p, ratio);
  INFO(program.describe() << " r=" << ratio);
  CHECK(mismatches(program.outputs(), reference) == 0);
}

}  // namespace

TEST_CASE("carried: kernel splitting under a loop-carried dependence equals the original loop") {
  // An odd population: the optimised part is whole warps, the original part keeps the tail.
  auto program = make_carried({.iterations = 6, .elements = (1 << 16) + 77, .max_trips = 512});
  for (double r : {0.0, 0.3, 0.5, 1.0}) verify_split_remapped_equal_to_original(*program, r);
  split_arguments paper;  // the paper's rule: whatever is ready in time
  paper.ratio = 0.4;
  verify_split_equal_to_original(*program, paper);
}

TEST_CASE("documentation example: a loop-carried loop split in two") {
  auto workload = make_carried({.iterations = 8, .elements = 1 << 16, .max_trips = 512});
  any_split_program program{*workload};
  cuda_backend backend;
  // example-begin split-before
  // The original program: iteration i reads what iteration i-1 wrote, so no remap can be
  // computed ahead of the GPU.
  for (std::size_t i = 0; i < program.iteration_count(); ++i)
    program.launch_original(i, split_range{0, program.elements()}, backend.compute_stream());
  backend.synchronize();
  // example-end split-before
  const auto reference = workload->outputs();
  workload->reset();
  // example-begin split-after
  // Each iteration split in two (zhang2011 Figure 7): the original kernel on the first 1 - r of
  // the threads while helper threads remap the last r from iteration i-1's output; the optimised
  // kernel on those if their remap is on the device in time, else the original kernel.
  split_arguments args;
  args.ratio = 0.5;  // r: share of each iteration remapped
  args.threads = 4;  // helper threads remapping it
  split_loop loop(backend, args);
  const pipeline_statistics& stats = loop.run(program);
  stats.print(std::cout);  // per iteration: kernel used for the second part, r, times
  // example-end split-after
  CHECK(workload->outputs() == reference);
}
