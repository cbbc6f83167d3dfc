// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The chunk-pipeline workloads in the registry (gafort, unwrap, Black-Scholes): each chunk of the
// loop is one launch of the program's kernel, remapped by helper threads ahead of the GPU
// (chunk_pipeline) with one of the program's methods. The tunables are the depth (Δ), the helper
// threads, the method, the memory limit and the piece granularity.
#include <algorithm>
#include <stdexcept>

#include "microsched/measure/host_timer.hpp"
#include "microsched/pipeline/chunk_pipeline.hpp"
#include "microsched/pipeline/cuda_backend.hpp"
#include "options.hpp"
#include "pipeline_registry.hpp"
#include "pipeline_workloads.hpp"

namespace microsched::workloads::registry {

namespace {

namespace pl = pipeline;
namespace pw = pipeline::workloads;

//! The program with one of its methods only (or all of them, method < 0): the pipeline takes the
//! first method that fits its memory limit, so offering one forces it. Jobs carry the program's
//! own index of the method.
struct chosen_method_program {
  pw::program_base& p;
  int method = -1;

  [[nodiscard]] std::size_t chunk_count() const { return p.chunk_count(); }
  [[nodiscard]] std::size_t chunk_elements(std::size_t c) const { return p.chunk_elements(c); }
  [[nodiscard]] std::vector<pl::remap_method> methods() const {
    auto all = p.methods();
    if (method < 0) return all;
    return {all.at(static_cast<std::size_t>(method))};
  }
  void prepare(int m, int slots) { p.prepare(real(m), slots); }
  pl::transform_outcome transform(const pl::transform_job& j) { return p.transform(mapped(j)); }
  void upload(const pl::transform_job& j, pw::stream_t s) { p.upload(mapped(j), s); }
  void launch_original(std::size_t c, pw::stream_t s) { p.launch_original(c, s); }
  void launch_optimised(const pl::transform_job& j, pw::stream_t s) {
    p.launch_optimised(mapped(j), s);
  }
  [[nodiscard]] std::vector<std::size_t> piece_bounds(std::size_t c, std::size_t m, int pieces,
                                                      std::size_t g) {
    return p.piece_bounds(c, m, pieces, g);
  }

 private:
  [[nodiscard]] int real(int m) const { return method < 0 ? m : method; }
  [[nodiscard]] pl::transform_job mapped(pl::transform_job j) const {
    j.method = real(j.method);
    return j;
  }
};
static_assert(pl::chunk_program<chosen_method_program, pl::cuda_backend>);
static_assert(pl::weighted_pieces<chosen_method_program>);

//! The methods each program lists, in its order (checked against the program when it is built).
std::vector<std::string> method_names(const std::string& workload) {
  if (workload == "gafort") return {"lam+redirection"};
  if (workload == "unwrap") return {"reorder-duplication", "job-swapping"};
  return {"regroup+redirection"};
}

std::vector<parameter> chunk_tunables(const std::string& workload) {
  auto methods = method_names(workload);
  methods.insert(methods.begin(), "auto");
  const pl::pipeline_arguments defaults;
  return {{"depth", std::to_string(defaults.depth),
           "Δ: chunks the helpers transform ahead of the GPU (1..64)"},
          {"helpers", std::to_string(defaults.threads_per_chunk),
           "helper threads working on one chunk (1..256)"},
          {"method", "auto",
           spell_list(methods) + " (auto: the first the memory limit lets through, in this order)"},
          {"memory-mb", std::to_string(defaults.memory_limit >> 20),
           "MiB the pipeline may add, host and device (1..1048576)"},
          {"granularity", workload == "unwrap" ? "4096" : std::to_string(defaults.granularity),
           "piece boundaries are multiples of this many elements (1..1048576)"}};
}

struct chunk_tunable_values {
  pl::pipeline_arguments args;
  int method = -1;  // index into method_names(); -1: auto
};

chunk_tunable_values parse_chunk_tunables(const std::string& workload, const options_map& o) {
  const auto known = chunk_tunables(workload);
  chunk_tunable_values v;
  v.args.depth = static_cast<int>(integer_option(o, known, "depth", 1, 64));
  v.args.threads_per_chunk = static_cast<int>(integer_option(o, known, "helpers", 1, 256));
  auto methods = method_names(workload);
  methods.insert(methods.begin(), "auto");
  const std::string method = choice_option(o, known, "method", methods);
  for (std::size_t i = 1; i < methods.size(); ++i) {
    if (methods[i] == method) v.method = static_cast<int>(i) - 1;
  }
  v.args.memory_limit = static_cast<std::size_t>(integer_option(o, known, "memory-mb", 1, 1 << 20))
                        << 20;
  v.args.granularity = static_cast<int>(integer_option(o, known, "granularity", 1, 1 << 20));
  pl::validate(v.args);
  return v;
}

std::vector<parameter> chunk_parameters(const std::string& workload) {
  if (workload == "gafort") {
    const pw::gafort_options d;
    return {{"chunks", std::to_string(d.chunks), "chunks (kernel launches) per loop"},
            {"elements", std::to_string(d.elements), "children per chunk"},
            {"max-trips", std::to_string(d.max_trips), "longest crossover segment"},
            {"seed", std::to_string(d.seed), "random seed"}};
  }
  if (workload == "unwrap") {
    const pw::unwrap_options d;
    return {{"chunks", std::to_string(d.chunks), "frames processed per loop"},
            {"frames", std::to_string(d.frames), "distinct frames cycled through"},
            {"width", std::to_string(d.width), "frame width in pixels"},
            {"height", std::to_string(d.height), "frame height in pixels"},
            {"radii", std::to_string(d.radii), "radii of the polar grid"},
            {"angles", std::to_string(d.angles), "angles of the polar grid"},
            {"seed", std::to_string(d.seed), "random seed"}};
  }
  const pw::blackscholes_options d;
  return {{"chunks", std::to_string(d.chunks), "chunks (iterations) per loop"},
          {"elements", std::to_string(d.elements), "options per chunk"},
          {"regions", std::to_string(d.regions), "distinct chunks of options cycled through"},
          {"seed", std::to_string(d.seed), "random seed"}};
}

//! Builds the program from its options; with `build` false only parses them (no device work).
std::unique_ptr<pw::program_base> chunk_program_from(const std::string& workload,
                                                     const options_map& o, bool build) {
  const auto known = chunk_parameters(workload);
  const auto count = [&](const char* name, long long hi) {
    return integer_option(o, known, name, 1, hi);
  };
  const auto seed = static_cast<unsigned>(integer_option(o, known, "seed", 0, 0xffffffffll));
  if (workload == "gafort") {
    pw::gafort_options g;
    g.chunks = static_cast<std::size_t>(count("chunks", 1 << 20));
    g.elements = static_cast<std::size_t>(count("elements", 1ll << 31));
    g.max_trips = static_cast<std::uint32_t>(count("max-trips", 1 << 24));
    g.seed = seed;
    return build ? pw::make_gafort(g) : nullptr;
  }
  if (workload == "unwrap") {
    pw::unwrap_options u;
    u.chunks = static_cast<std::size_t>(count("chunks", 1 << 20));
    u.frames = static_cast<int>(count("frames", 4096));
    u.width = static_cast<int>(count("width", 1 << 15));
    u.height = static_cast<int>(count("height", 1 << 15));
    u.radii = static_cast<int>(count("radii", 1 << 15));
    u.angles = static_cast<int>(count("angles", 1 << 16));
    u.seed = seed;
    return build ? pw::make_unwrap(u) : nullptr;
  }
  pw::blackscholes_options b;
  b.chunks = static_cast<std::size_t>(count("chunks", 1 << 20));
  b.elements = static_cast<std::size_t>(count("elements", 1ll << 31));
  b.regions = static_cast<int>(count("regions", 1 << 20));
  b.seed = seed;
  return build ? pw::make_blackscholes(b) : nullptr;
}

class chunk_pipeline_workload final : public workload {
 public:
  chunk_pipeline_workload(std::string name, std::unique_ptr<pw::program_base> program)
      : name_(std::move(name)), program_(std::move(program)) {
    const auto listed = program_->methods();
    const auto expected = method_names(name_);
    bool same = listed.size() == expected.size();
    for (std::size_t i = 0; same && i < listed.size(); ++i) same = listed[i].name == expected[i];
    if (!same)
      throw std::logic_error(name_ + ": the program's methods changed; update method_names()");
    for (std::size_t c = 0; c < program_->chunk_count(); ++c) tasks_ += program_->chunk_elements(c);
    set_tunables({});
  }
  [[nodiscard]] std::string name() const override { return name_; }
  [[nodiscard]] std::string describe() const override { return program_->describe(); }
  [[nodiscard]] std::uint64_t num_tasks() const override { return tasks_; }
  [[nodiscard]] std::uint64_t total_steps() override { return 0; }
  [[nodiscard]] workload_traits traits() const override { return pipeline_traits(); }
  void set_tunables(const options_map& values) override {
    reject_unknown(name_, values, chunk_tunables(name_));
    tunables_ = parse_chunk_tunables(name_, values);
  }

  timing_stats time_vanilla(const timing_options& o) override {
    chosen_method_program p{*program_, -1};
    return time_on_host([&] { pl::chunk_pipeline<pl::cuda_backend>::run_original(backend_, p); },
                        o);
  }
  timing_stats time_warp_persistent(const timing_options&) override {
    no_reference(name_, "persistent-threads", pipeline_missing);
  }
  timing_stats time_floor(const timing_options&) override {
    no_reference(name_, "floor", pipeline_missing);
  }
  //! The pipelined loop with the tunables (the schedule does not apply). One pipeline serves the
  //! warm-up and the repetitions, as in a program that runs the loop again and again.
  timing_stats time_scheduled(const schedule_arguments&, const timing_options& o) override {
    chosen_method_program p{*program_, tunables_.method};
    pl::chunk_pipeline<pl::cuda_backend> pipe(backend_, tunables_.args);
    auto t = time_on_host(
        [&] {
          (void)pipe.run(p);
          wait_for_device();
        },
        o);
    last_summary_ = pipe.statistics().summary();
    return t;
  }
  //! Poisons the outputs and compares every output word with the original loop's, twice: the
  //! loop with every chunk remapped before its launch (chunk_pipeline::run_remapped, so the
  //! optimised kernel runs on every chunk, with the method the tunables choose), then the
  //! pipelined loop, whatever it chose per chunk.
  verification_report verify_scheduled(const schedule_arguments&) override {
    chosen_method_program p{*program_, tunables_.method};
    if (reference_.empty()) {
      program_->poison_outputs();
      pl::chunk_pipeline<pl::cuda_backend>::run_original(backend_, p);
      reference_ = program_->outputs();
    }
    const auto compare = [&] {
      return compare_outputs(program_->outputs(), reference_, tasks_,
                             std::max<std::uint64_t>(1, reference_.size() / tasks_));
    };
    program_->poison_outputs();
    pl::chunk_pipeline<pl::cuda_backend>::run_remapped(
        backend_, p, 0, 1.0, static_cast<std::size_t>(tunables_.args.granularity));
    auto remapped = compare();
    if (!remapped.passed) {
      remapped.detail += "(every chunk remapped)";
      return remapped;
    }
    pl::chunk_pipeline<pl::cuda_backend> pipe(backend_, tunables_.args);
    program_->poison_outputs();
    const auto& stats = pipe.run(p);
    wait_for_device();
    auto r = compare();
    if (!r.passed) r.detail += "(" + stats.summary() + ")";
    return r;
  }
  [[nodiscard]] std::vector<resource_report> resources(const schedule_arguments&) override {
    return {};
  }
  //! What the last timed pipeline did: method, memory, optimised chunks, the control's state.
  [[nodiscard]] std::string schedule_report(const schedule_arguments&) override {
    return last_summary_.empty() ? "not timed yet" : last_summary_;
  }

 private:
  std::string name_;
  std::unique_ptr<pw::program_base> program_;
  pl::cuda_backend backend_;
  chunk_tunable_values tunables_;
  std::uint64_t tasks_ = 0;
  std::vector<std::uint32_t> reference_;
  std::string last_summary_;
};

//! The settings are the program's options, checked without building it.
entry chunk_entry(const std::string& name) {
  return entry_of<options_map>(
      {.name = name,
       .parameters = [name] { return chunk_parameters(name); },
       .parse =
           [name](const options_map& o) {
             (void)chunk_program_from(name, o, false);
             return o;
           },
       .build = [name](const options_map& o) -> std::unique_ptr<workload> {
         return std::make_unique<chunk_pipeline_workload>(name, chunk_program_from(name, o, true));
       },
       .traits = pipeline_traits,
       .tunables = [name] { return chunk_tunables(name); },
       .check_tunables = [name](const options_map& values,
                                const options_map&) { (void)parse_chunk_tunables(name, values); }});
}

}  // namespace

std::vector<entry> chunk_pipeline_entries() {
  return {chunk_entry("gafort"), chunk_entry("unwrap"), chunk_entry("blackscholes")};
}

}  // namespace microsched::workloads::registry
