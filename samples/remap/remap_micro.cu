// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// remap_micro: runs lin2018's micro-benchmark once per variant, checks the remapped output
// against the original, and prints time and control-flow efficiency (in-kernel counters).
// --profile-once launches exactly two micro_branch kernels of the chosen variant (a counting one,
// then a plain one) so that ncu can profile the plain launch (scripts/gpu-check.d/remap.sh).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <vector>

#include "checked_cli.hpp"
#include "microsched/device.hpp"
#include "microsched/measure/event_timer.hpp"
#include "registry_cli.hpp"
#include "remap/device_array.hpp"
#include "remap/micro_branch.hpp"

using namespace microsched;
using namespace microsched::remap_kernels;

namespace {

//! The command line: the kernel's configuration, the input and what to run. add_options sets the
//! registry's defaults.
struct micro_command {
  micro_config config;
  std::string variant, dist;
  int n = 0;
  bool profile_once = false;
};

//! The kernel's shape and variant, the input's size and distribution, and --profile-once. The
//! options and tunables of the registry's "micro-branch" take its defaults and help
//! (registry_option.hpp).
void add_options(CLI::App& app, micro_command& c) {
  const samples::registry_options& registry = samples::remap_micro_options;
  samples::add_registry_option(app, registry, "--paths", c.config.paths)
      ->check(CLI::IsMember({2, 4, 8}));
  samples::add_registry_option(app, registry, "--block", c.config.block_threads)
      ->check(CLI::IsMember({256, 1024}));
  samples::add_registry_option(app, registry, "--neighbouring", c.config.neighbouring)
      ->check(CLI::IsMember({4, 16, 64}));
  samples::add_registry_checked(app, registry, "--work", c.config.work, 0, 1 << 20);
  samples::add_registry_option(app, registry, "--variant", c.variant)
      ->check(CLI::IsMember({"original", "hot", "hot16", "dgi"}));
  // uniform, the divergence-free floor, is the sample's own choice.
  samples::add_registry_option(app, registry, "--distribution", c.dist)
      ->check(CLI::IsMember({"iid", "balanced", "uniform"}))
      ->description(registry.help("--distribution") + "; uniform: every element takes path 0");
  samples::add_registry_checked(app, registry, "-n", c.n, 1, 1 << 30);
  app.add_flag("--profile-once", c.profile_once, "one counting and one plain launch, nothing else");
}

//! Refuses, as bad usage, a configuration that this build did not compile.
void check_compiled(const micro_config& config, const std::string& variant) {
  if (!micro_supported(config)) {
    throw std::invalid_argument("--paths " + std::to_string(config.paths) + " --block " +
                                std::to_string(config.block_threads) + " --neighbouring " +
                                std::to_string(config.neighbouring) + " --variant " + variant +
                                ": this combination is not compiled (N 4 and 64: 4 paths, 256 "
                                "threads)");
  }
}

//! Uniform in [-1, 1) from a fixed seed, so that every run sees the same operand.
std::vector<float> random_operand(int n) {
  std::vector<float> host(static_cast<std::size_t>(n));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& v : host) v = u(rng);
  return host;
}

//! Checks the variant's output against the original's, times both and prints them.
int compare_with_original(const micro_command& c, const float* operand, const std::uint8_t* path,
                          device_array<float>& out, device_array<float>& ref, double ratio) {
  const micro_config& config = c.config;
  const int n = c.n;
  micro_config base = config;
  base.variant = remap_variant::original;
  ref.fill_bytes(0xff);
  launch_micro_branch(base, operand, path, ref.data(), n, nullptr, nullptr);
  out.fill_bytes(0xff);
  launch_micro_branch(config, operand, path, out.data(), n, nullptr, nullptr);
  const auto a = ref.to_host(), b = out.to_host();
  const bool same = std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
  event_timer timer;
  const auto t_orig = timer.time(
      [&](cudaStream_t s) { launch_micro_branch(base, operand, path, ref.data(), n, nullptr, s); },
      {});
  const auto t_var = timer.time(
      [&](cudaStream_t s) {
        launch_micro_branch(config, operand, path, out.data(), n, nullptr, s);
      },
      {});
  std::printf("paths=%d block=%d variant=%s distribution=%s n=%d work=%d\n", config.paths,
              config.block_threads, variant_name(config.variant), c.dist.c_str(), n, config.work);
  std::printf("original %.4f ms, %s %.4f ms, speedup %.3f, cfe_counters=%.6f, output %s\n",
              t_orig.median_ms, variant_name(config.variant), t_var.median_ms,
              t_orig.median_ms / t_var.median_ms, ratio, same ? "equal" : "DIFFERENT");
  return same ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"lin2018 micro-benchmark: a data-dependent branch, original vs remapped"};
  micro_command c;
  add_options(app, c);
  MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);
  return programs::run_main("remap_micro", [&] {
    micro_config& config = c.config;
    const int n = c.n;
    config.variant = parse_variant(c.variant);
    const auto distribution = parse_distribution(c.dist);
    if (app.count("--neighbouring") > 0 && config.variant != remap_variant::data_group_index) {
      throw std::invalid_argument("--neighbouring " + std::to_string(config.neighbouring) +
                                  ": DGI's N, for --variant dgi only (this run: --variant " +
                                  c.variant + ")");
    }
    check_compiled(config, c.variant);
    programs::require_gpu();
    std::printf("device: %s\n", describe(current_device()).c_str());
    const std::vector<float> host = random_operand(n);
    device_array<float> operand(host), out(host.size()), ref(host.size());
    device_array<std::uint8_t> path(
        make_paths(n, config.paths, config.block_threads, distribution, 77u + config.paths));
    device_array<remap::cfe_totals> cfe(1);
    cfe.fill_bytes(0);
    launch_micro_branch(config, operand.data(), path.data(), out.data(), n, cfe.data(), nullptr);
    const double ratio = remap::cfe_ratio(cfe.to_host()[0]);
    if (c.profile_once) {
      out.fill_bytes(0xff);
      launch_micro_branch(config, operand.data(), path.data(), out.data(), n, nullptr, nullptr);
      MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
      std::printf("paths=%d variant=%s distribution=%s cfe_counters=%.6f\n", config.paths,
                  variant_name(config.variant), c.dist.c_str(), ratio);
      return 0;
    }
    return compare_with_original(c, operand.data(), path.data(), out, ref, ratio);
  });
}
