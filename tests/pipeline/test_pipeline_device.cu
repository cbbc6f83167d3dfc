// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device suites (label gpu): the pipelined program, whatever it chooses per chunk, writes exactly
// the outputs of the original loop (same per-element code; outputs poisoned before each run).
#include <doctest/doctest.h>

#include <cstring>
#include <iostream>

#include "microsched/pipeline/chunk_pipeline.hpp"
#include "microsched/pipeline/cuda_backend.hpp"
#include "pipeline_workloads.hpp"

using namespace microsched::pipeline;
using namespace microsched::pipeline::workloads;

namespace {

pipeline_statistics check_equal_to_original(program_base& program, const pipeline_arguments& args,
                                            std::size_t min_optimised) {
  cuda_backend backend;
  any_program p{program};
  program.poison_outputs();
  chunk_pipeline<cuda_backend>::run_original(backend, p);
  const auto reference = program.outputs();
  program.poison_outputs();
  chunk_pipeline pipe(backend, args);
  const auto& stats = pipe.run(p);
  const auto result = program.outputs();
  INFO(program.describe() << " | " << stats.summary());
  REQUIRE(result.size() == reference.size());
  std::size_t mismatched = 0;
  for (std::size_t i = 0; i < result.size(); ++i) mismatched += result[i] != reference[i] ? 1 : 0;
  CHECK(mismatched == 0);
  CHECK(stats.optimised_count() >= min_optimised);
  return stats;
}

pipeline_arguments fixed(double ratio) {
  pipeline_arguments args;
  args.host_check = false;  // optimised chunks whatever this host's load
  args.depth = 2;
  args.threads_per_chunk = 4;
  args.control.adaptive = false;
  args.control.fixed_ratio = ratio;
  args.wait_for_remap = true;  // every chunk takes the optimised path, to check its results
  return args;
}

}  // namespace

TEST_CASE("gafort: LAM-redirected kernel equals the original") {
  auto program = make_gafort({.chunks = 6, .elements = 1 << 16, .max_trips = 512});
  check_equal_to_original(*program, fixed(1.0), 1);
  check_equal_to_original(*program, fixed(0.5), 1);
  check_equal_to_original(*program, pipeline_arguments{}, 0);
  auto paper =
      make_gafort({.chunks = 4, .elements = 1 << 16, .max_trips = 512, .fill_quotas = false});
  check_equal_to_original(*paper, fixed(1.0), 1);
}

TEST_CASE("unwrap: reordered kernel equals the original") {
  auto program = make_unwrap(
      {.chunks = 6, .frames = 2, .width = 1024, .height = 768, .radii = 128, .angles = 512});
  check_equal_to_original(*program, fixed(1.0), 1);
  check_equal_to_original(*program, fixed(0.3), 1);  // all-or-nothing: a share of whole frames
  check_equal_to_original(*program, pipeline_arguments{}, 0);  // adaptive, loss guard
  // A sample count that is not a multiple of 4 takes the one-sample-per-thread kernel.
  auto odd = make_unwrap(
      {.chunks = 4, .frames = 2, .width = 640, .height = 480, .radii = 129, .angles = 511});
  check_equal_to_original(*odd, fixed(1.0), 1);
  // Without gather plans every piece follows the block plan: the same outputs.
  auto unplanned = make_unwrap({.chunks = 6,
                                .frames = 2,
                                .width = 1024,
                                .height = 768,
                                .radii = 128,
                                .angles = 512,
                                .plan_cache = 0});
  check_equal_to_original(*unplanned, fixed(1.0), 1);
  // Pieces of equal size instead of equal cost: the same outputs.
  auto equal = make_unwrap({.chunks = 6,
                            .frames = 2,
                            .width = 1024,
                            .height = 768,
                            .radii = 128,
                            .angles = 512,
                            .weighted_pieces = false});
  check_equal_to_original(*equal, fixed(1.0), 1);
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
    for (pipeline_arguments args : {fixed(1.0), pipeline_arguments{}}) {
      args.memory_limit = 100000;
      const pipeline_statistics stats =
          check_equal_to_original(*program, args, args.wait_for_remap ? o.chunks - 1 : 0);
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
  check_equal_to_original(*program, fixed(1.0), 1);
  check_equal_to_original(*program, pipeline_arguments{}, 0);
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

//! The split loop against the original loop on the same population: every iteration's outputs
//! and the final population bit-exact (outputs poisoned before each run).
void check_split_equal_to_original(split_program_base& program, const split_arguments& args,
                                   std::size_t min_optimised) {
  cuda_backend backend;
  any_split_program p{program};
  program.reset();
  split_loop<cuda_backend>::run_original(backend, p);
  const auto reference = program.outputs();
  program.reset();
  split_loop loop(backend, args);
  const auto& stats = loop.run(p);
  const auto result = program.outputs();
  INFO(program.describe() << " r=" << args.ratio << " | " << stats.summary());
  REQUIRE(result.size() == reference.size());
  std::size_t mismatched = 0;
  for (std::size_t i = 0; i < result.size(); ++i) mismatched += result[i] != reference[i] ? 1 : 0;
  CHECK(mismatched == 0);
  CHECK(stats.optimised_count() >= min_optimised);
}

}  // namespace

TEST_CASE("carried: kernel splitting under a loop-carried dependence equals the original loop") {
  // An odd population: the optimised part is whole warps, the original part keeps the tail.
  auto program = make_carried({.iterations = 6, .elements = (1 << 16) + 77, .max_trips = 512});
  for (double r : {0.0, 0.3, 0.5, 1.0}) {
    split_arguments args;
    args.ratio = r;
    args.threads = 4;
    args.wait_for_remap = true;  // every second part remapped, to check its results
    check_split_equal_to_original(*program, args, r > 0 ? 6 : 0);
  }
  split_arguments paper;  // the paper's rule: whatever is ready in time
  paper.ratio = 0.4;
  check_split_equal_to_original(*program, paper, 0);
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
