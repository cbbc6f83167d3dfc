// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The remap workloads in the registry (lin2018's micro-benchmark, chi-square p-values, a model
// tree): the workload interface over their launch functions (micro_branch.hpp, realistic.hpp),
// with their options and tunables. There is no scheduler and no persistent driver: the kernels
// run one thread per element, remapped inside each block or not. The tunables are the method and
// (micro-branch) DGI's N; the block size is an option because the references run with it too.
#include <cstring>
#include <random>
#include <stdexcept>

#include "microsched/device_buffer.hpp"
#include "microsched/measure/event_timer.hpp"
#include "options.hpp"
#include "registry_support.hpp"
#include "remap/micro_branch.hpp"
#include "remap/realistic.hpp"

namespace microsched::workloads::registry {

namespace {

namespace rk = remap_kernels;

const char* const no_persistent =
    "persistent threads: the remap kernels run one thread per element, with no persistent "
    "driver";

std::vector<std::uint32_t> words_of(const device_buffer<float>& out) {
  const auto host = out.to_host();
  std::vector<std::uint32_t> words(host.size());
  std::memcpy(words.data(), host.data(), host.size() * sizeof(float));
  return words;
}

//! The shared part of the three: inputs built by the concrete class, a float output per element,
//! a reference from the original kernel, timing with CUDA events on the workload's stream.
class remap_workload : public workload {
  std::string name_;

 public:
  remap_workload(std::string name, int n, int block_threads)
      : name_(std::move(name)), n_(n), block_threads_(block_threads), out_(n) {}
  [[nodiscard]] std::string name() const override { return name_; }
  [[nodiscard]] std::uint64_t num_tasks() const override { return static_cast<std::uint64_t>(n_); }
  [[nodiscard]] std::uint64_t total_steps() override { return 0; }

  timing_stats time_vanilla(const timing_options& o) override {
    return timer_.time([&](cudaStream_t s) { launch(rk::remap_variant::original, s); }, o,
                       stream_.get());
  }
  timing_stats time_warp_persistent(const timing_options&) override {
    no_reference(name_, "persistent-threads", no_persistent);
  }
  //! The schedule does not apply (traits().takes_schedule is false).
  timing_stats time_scheduled(const schedule_arguments&, const timing_options& o) override {
    return timer_.time([&](cudaStream_t s) { launch(method_, s); }, o, stream_.get());
  }
  //! Poisons the output, runs the method once, compares every element's bits with the original
  //! kernel's. Each element is written by one thread; the kernels keep no per-element counter,
  //! so a duplicate write of the same value cannot be told apart and `duplicated` stays 0.
  verification_report verify_scheduled(const schedule_arguments&) override {
    if (reference_.empty()) {
      out_.fill_bytes(0xff, stream_.get());
      launch(rk::remap_variant::original, stream_.get());
      stream_.synchronize();
      reference_ = words_of(out_);
    }
    out_.fill_bytes(0xff, stream_.get());
    launch(method_, stream_.get());
    stream_.synchronize();
    return compare_outputs(words_of(out_), reference_, num_tasks(), 1);
  }
  [[nodiscard]] std::vector<resource_report> resources(const schedule_arguments&) override {
    return {};
  }
  [[nodiscard]] std::string schedule_report(const schedule_arguments&) override {
    return std::string("method ") + rk::variant_name(method_) + ", " +
           std::to_string(block_threads_) + " threads per block";
  }

 protected:
  virtual void launch(rk::remap_variant variant, cudaStream_t s) = 0;
  int n_;
  int block_threads_;
  rk::remap_variant method_ = rk::remap_variant::original;
  device_buffer<float> out_;
  cuda_stream stream_;
  event_timer timer_;

 private:
  std::vector<std::uint32_t> reference_;
};

std::vector<parameter> method_tunable(const std::vector<std::string>& methods,
                                      const std::string& fallback) {
  std::string meaning = "original: none, the reference";
  for (const std::string& m : methods) {
    if (m == "hot") meaning += "; hot: Head-or-Tail, 32-bit ids";
    if (m == "hot16") meaning += "; hot16: Head-or-Tail, 16-bit ids";
    if (m == "dgi") meaning += "; dgi: data group index";
  }
  return {{"method", fallback,
           "the remap before the branch: " + spell_list(methods) + " (" + meaning + ")"}};
}

// ---------------------------------------------------------------------------------------------
// micro-branch

const std::vector<std::string> micro_methods = {"original", "hot", "hot16", "dgi"};

std::vector<parameter> micro_parameters() {
  return {{"n", "4194304", "elements"},
          {"paths", "2", "paths of the branch: 2, 4 or 8"},
          {"work", "1024", "loop iterations per path (8 dependent FMAs each)"},
          {"distribution", "balanced",
           "balanced (every block holds each path equally often, lin2018 4.2) or iid"},
          {"block-threads", "256", "threads per block: 256 or 1024"},
          {"seed", "1", "random seed of the operands and paths"}};
}

std::vector<parameter> micro_tunables() {
  auto t = method_tunable(micro_methods, "dgi");
  t.push_back({"neighbouring", "16", "DGI's N (neighbouring data groups): 4, 16 or 64"});
  return t;
}

struct micro_settings {
  rk::micro_config config;
  int n = 1 << 22;
  rk::path_distribution distribution = rk::path_distribution::balanced;
  std::uint32_t seed = 1;
};

micro_settings parse_micro(const options_map& options) {
  const auto known = micro_parameters();
  micro_settings s;
  s.n = static_cast<int>(integer_option(options, known, "n", 1, 1 << 30));
  s.config.paths = listed_integer_option(options, known, "paths", {2, 4, 8});
  s.config.work = static_cast<int>(integer_option(options, known, "work", 0, 1 << 20));
  s.distribution =
      rk::parse_distribution(choice_option(options, known, "distribution", {"balanced", "iid"}));
  s.config.block_threads = listed_integer_option(options, known, "block-threads", {256, 1024});
  s.seed = static_cast<std::uint32_t>(integer_option(options, known, "seed", 0, 0xffffffffll));
  return s;
}

//! The method and N; whether the kernel was compiled for them is the workload's to say.
rk::micro_config parse_micro_tunables(const options_map& options, rk::micro_config config) {
  const auto known = micro_tunables();
  config.variant = rk::parse_variant(choice_option(options, known, "method", micro_methods));
  config.neighbouring = listed_integer_option(options, known, "neighbouring", {4, 16, 64});
  return config;
}

class micro_branch_workload final : public remap_workload {
 public:
  explicit micro_branch_workload(const micro_settings& s)
      : remap_workload("micro-branch", s.n, s.config.block_threads),
        settings_(s),
        config_(s.config),
        operand_(s.n) {
    std::mt19937 rng(s.seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> host(static_cast<std::size_t>(s.n));
    for (auto& v : host) v = u(rng);
    operand_.upload(host);
    paths_ = device_buffer<std::uint8_t>(
        rk::make_paths(s.n, s.config.paths, s.config.block_threads, s.distribution, 77u + s.seed));
    flat_ = device_buffer<std::uint8_t>(rk::make_paths(s.n, s.config.paths, s.config.block_threads,
                                                       rk::path_distribution::uniform, 0));
    set_tunables({});
  }
  [[nodiscard]] std::string describe() const override {
    return "micro-branch n=" + std::to_string(n_) +
           " paths=" + std::to_string(settings_.config.paths) +
           " work=" + std::to_string(config_.work) + " " +
           rk::distribution_name(settings_.distribution) +
           " block-threads=" + std::to_string(block_threads_);
  }
  [[nodiscard]] workload_traits traits() const override;
  void set_tunables(const options_map& values) override {
    reject_unknown(name(), values, micro_tunables());
    const rk::micro_config c = parse_micro_tunables(values, settings_.config);
    if (!rk::micro_supported(c)) {
      throw std::invalid_argument("micro-branch: method " +
                                  std::string(rk::variant_name(c.variant)) +
                                  (c.variant == rk::remap_variant::data_group_index
                                       ? " with neighbouring = " + std::to_string(c.neighbouring)
                                       : std::string()) +
                                  " is not compiled for paths = " + std::to_string(c.paths) +
                                  ", block-threads = " + std::to_string(c.block_threads) +
                                  " (HoT: 2 paths; DGI N=4 and 64: 4 paths, 256 threads)");
    }
    config_ = c;
    method_ = c.variant;
  }
  //! The divergence-free floor: the original kernel with every element on path 0.
  timing_stats time_floor(const timing_options& o) override {
    rk::micro_config base = config_;
    base.variant = rk::remap_variant::original;
    return timer_.time(
        [&](cudaStream_t s) {
          rk::launch_micro_branch(base, operand_.data(), flat_.data(), out_.data(), n_, nullptr, s);
        },
        o, stream_.get());
  }

 protected:
  void launch(rk::remap_variant variant, cudaStream_t s) override {
    rk::micro_config c = config_;
    c.variant = variant;
    rk::launch_micro_branch(c, operand_.data(), paths_.data(), out_.data(), n_, nullptr, s);
  }

 private:
  micro_settings settings_;
  rk::micro_config config_;
  device_buffer<float> operand_;
  device_buffer<std::uint8_t> paths_;
  device_buffer<std::uint8_t> flat_;
};

workload_traits micro_traits() {
  return {.area = "remap",
          .takes_schedule = false,
          .baselines = {.vanilla = "original kernel",
                        .persistent = "",
                        .floor = "uniform paths",
                        .missing = no_persistent}};
}
workload_traits micro_branch_workload::traits() const {
  return micro_traits();
}

// ---------------------------------------------------------------------------------------------
// chi-square p-values and the model tree: the paths come from the data

std::vector<parameter> realistic_parameters() {
  return {{"n", "4194304", "elements"},
          {"block-threads", "256", "threads per block: 256 or 1024"},
          {"seed", "5", "random seed of the inputs"}};
}

struct realistic_settings {
  int n = 1 << 22;
  int block_threads = 256;
  std::uint32_t seed = 5;
};

realistic_settings parse_realistic(const options_map& options) {
  const auto known = realistic_parameters();
  realistic_settings s;
  s.n = static_cast<int>(integer_option(options, known, "n", 1, 1 << 28));
  s.block_threads = listed_integer_option(options, known, "block-threads", {256, 1024});
  s.seed = static_cast<std::uint32_t>(integer_option(options, known, "seed", 0, 0xffffffffll));
  return s;
}

const std::vector<std::string> chi_square_methods = {"original", "hot", "hot16", "dgi"};
const std::vector<std::string> model_tree_methods = {"original", "dgi"};

workload_traits realistic_traits() {
  workload_traits t = micro_traits();
  t.baselines.floor = "";
  t.baselines.missing = std::string(no_persistent) +
                        "; floor: the paths come from the data, so there is no divergence-free "
                        "input of the same work";
  return t;
}

class chi_square_workload final : public remap_workload {
 public:
  explicit chi_square_workload(const realistic_settings& s)
      : remap_workload("chi-square", s.n, s.block_threads), a_(s.n), x_(s.n) {
    std::mt19937 rng(s.seed);
    std::uniform_real_distribution<float> ua(0.5f, 30.0f), ur(0.2f, 2.0f);
    std::vector<float> a(static_cast<std::size_t>(s.n)), x(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = ua(rng), x[i] = a[i] * ur(rng);
    a_.upload(a);
    x_.upload(x);
    set_tunables({});
  }
  [[nodiscard]] std::string describe() const override {
    return "chi-square n=" + std::to_string(n_) +
           " block-threads=" + std::to_string(block_threads_);
  }
  [[nodiscard]] workload_traits traits() const override { return realistic_traits(); }
  void set_tunables(const options_map& values) override {
    const auto known = method_tunable(chi_square_methods, "hot");
    reject_unknown(name(), values, known);
    method_ = rk::parse_variant(choice_option(values, known, "method", chi_square_methods));
  }
  timing_stats time_floor(const timing_options&) override {
    no_reference(name(), "floor", realistic_traits().baselines.missing);
  }

 protected:
  void launch(rk::remap_variant variant, cudaStream_t s) override {
    rk::launch_chi_square_pvalues(variant, block_threads_, a_.data(), x_.data(), out_.data(), n_,
                                  nullptr, s);
  }

 private:
  device_buffer<float> a_, x_;
};

class model_tree_workload final : public remap_workload {
 public:
  explicit model_tree_workload(const realistic_settings& s)
      : remap_workload("model-tree", s.n, s.block_threads),
        records_(static_cast<std::size_t>(s.n) * rk::model_tree_features) {
    std::mt19937 rng(s.seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> r(static_cast<std::size_t>(s.n) * rk::model_tree_features);
    for (auto& f : r) f = u(rng);
    records_.upload(r);
    rk::upload_model_tree_weights(42);
    set_tunables({});
  }
  [[nodiscard]] std::string describe() const override {
    return "model-tree n=" + std::to_string(n_) +
           " block-threads=" + std::to_string(block_threads_);
  }
  [[nodiscard]] workload_traits traits() const override { return realistic_traits(); }
  void set_tunables(const options_map& values) override {
    const auto known = method_tunable(model_tree_methods, "dgi");
    reject_unknown(name(), values, known);
    method_ = rk::parse_variant(choice_option(values, known, "method", model_tree_methods));
  }
  timing_stats time_floor(const timing_options&) override {
    no_reference(name(), "floor", realistic_traits().baselines.missing);
  }

 protected:
  void launch(rk::remap_variant variant, cudaStream_t s) override {
    rk::launch_model_tree(variant, block_threads_, records_.data(), out_.data(), n_, nullptr, s);
  }

 private:
  device_buffer<float> records_;
};

std::vector<parameter> chi_square_tunables() {
  return method_tunable(chi_square_methods, "hot");
}
std::vector<parameter> model_tree_tunables() {
  return method_tunable(model_tree_methods, "dgi");
}
void validate_micro_tunables(const options_map& values, const micro_settings& s) {
  (void)parse_micro_tunables(values, s.config);
}
void validate_chi_square_tunables(const options_map& values, const realistic_settings&) {
  (void)choice_option(values, chi_square_tunables(), "method", chi_square_methods);
}
void validate_model_tree_tunables(const options_map& values, const realistic_settings&) {
  (void)choice_option(values, model_tree_tunables(), "method", model_tree_methods);
}

}  // namespace

std::vector<entry> remap_entries() {
  return {entry_of<micro_settings>({.name = "micro-branch",
                                    .parameters = micro_parameters,
                                    .parse = parse_micro,
                                    .build = build_as<micro_branch_workload, micro_settings>,
                                    .traits = micro_traits,
                                    .tunables = micro_tunables,
                                    .check_tunables = validate_micro_tunables}),
          entry_of<realistic_settings>({.name = "chi-square",
                                        .parameters = realistic_parameters,
                                        .parse = parse_realistic,
                                        .build = build_as<chi_square_workload, realistic_settings>,
                                        .traits = realistic_traits,
                                        .tunables = chi_square_tunables,
                                        .check_tunables = validate_chi_square_tunables}),
          entry_of<realistic_settings>({.name = "model-tree",
                                        .parameters = realistic_parameters,
                                        .parse = parse_realistic,
                                        .build = build_as<model_tree_workload, realistic_settings>,
                                        .traits = realistic_traits,
                                        .tunables = model_tree_tunables,
                                        .check_tunables = validate_model_tree_tunables})};
}

}  // namespace microsched::workloads::registry
