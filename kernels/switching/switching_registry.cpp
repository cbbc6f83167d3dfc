// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The switching workloads in the registry: their options and tunables (one parameter list each,
// which the registry's --help, the sweep and validation share), and the workload interface of
// the two runners (switching_workloads.hpp), whose scheduled runs take the tunables' variant.
#include <stdexcept>

#include "options.hpp"
#include "registry_support.hpp"
#include "switching_workloads.hpp"

namespace microsched::switching_workloads {

namespace {

using namespace microsched::workloads;
using namespace microsched::workloads::registry;
namespace sw = switching_workloads;

//! The ray caster's image may differ from vanilla's by rounding in the shading: the check allows
//! a channel difference of 2 on at most 0.1% of the pixels (as samples/switching/raycast does).
constexpr int raycast_tolerance = 2;
constexpr double raycast_allowed_fraction = 0.001;

std::vector<parameter> switching_tunable_parameters() {
  return {{"contexts", "64",
           "contexts per warp in the pool: one of the compiled sizes, " +
               spell_list(sw::compiled_pool_sizes())},
          {"switch-every", "1",
           "deferred switching: vote and switch on every n-th visit of a managed branch (1: "
           "every visit)"}};
}

sw::switching_tunables read_tunables(const options_map& options) {
  const auto known = switching_tunable_parameters();
  sw::switching_tunables v;
  v.contexts_per_warp =
      listed_integer_option(options, known, "contexts", sw::compiled_pool_sizes());
  v.switch_every = static_cast<int>(integer_option(options, known, "switch-every", 1, 1 << 20));
  return v;
}

std::vector<parameter> mc_branch_parameters() {
  return {{"tasks", "1048576", "tasks (independent random walks)"},
          {"p", "0.01", "chance that an outer iteration enters the branch (0..1)"},
          {"outer", "1000", "outer iterations per task"},
          {"inner", "1000", "inner iterations of the branch"},
          {"seed", "1234", "random seed"}};
}

sw::montecarlo_branch_settings parse_mc_branch(const options_map& options) {
  const auto known = mc_branch_parameters();
  sw::montecarlo_branch_settings s;
  s.tasks = static_cast<std::uint64_t>(integer_option(options, known, "tasks", 1, 1ll << 30));
  s.probability = static_cast<float>(real_option(options, known, "p", 0.0, 1.0));
  s.outer = static_cast<std::uint32_t>(integer_option(options, known, "outer", 1, 1 << 24));
  s.inner = static_cast<std::uint32_t>(integer_option(options, known, "inner", 1, 1 << 24));
  s.seed = static_cast<unsigned long long>(integer_option(options, known, "seed", 0, 1ll << 62));
  return s;
}

workload_traits mc_branch_traits() {
  return {.area = "switching",
          .baselines = {.persistent = "termination-only driver", .floor = "ideal", .missing = ""}};
}

std::vector<parameter> raycast_parameters() {
  return {{"width", "512", "image width in pixels"},
          {"height", "512", "image height in pixels"},
          {"step", "0.05", "ray-marching step size (smaller: more samples per ray)"},
          {"window", "16",
           "samples one step marches at most (1..4096); an option, not a tunable, because the "
           "vanilla and termination-only references change with it"},
          {"skip-empty", "0", "1: empty-space skipping (fewer samples, the same image)"},
          {"tile", "0x0", "task order: WxH tiles of pixels (both divide the image), 0x0 row-major"},
          {"center-first", "0",
           "1: scheduled runs take the expensive tiles first; vanilla is then timed in the same "
           "order"}};
}

sw::raycast_settings parse_raycast(const options_map& options) {
  const auto known = raycast_parameters();
  sw::raycast_settings s;
  s.width = static_cast<int>(integer_option(options, known, "width", 1, 1 << 14));
  s.height = static_cast<int>(integer_option(options, known, "height", 1, 1 << 14));
  s.step_size = static_cast<float>(real_option(options, known, "step", 1e-4, 1.0));
  s.march_window = static_cast<int>(integer_option(options, known, "window", 1, 4096));
  s.skip_empty = choice_option(options, known, "skip-empty", {"0", "1"}) == "1";
  s.center_first = choice_option(options, known, "center-first", {"0", "1"}) == "1";
  const std::string tile = option_or_default(options, known, "tile");
  const auto x = tile.find('x');
  const auto bad_tile = [&] {
    return std::invalid_argument("tile = " + tile +
                                 ": expected WxH with W and H dividing the image size "
                                 "(e.g. 8x4), or 0x0 for row-major");
  };
  if (x == std::string::npos) throw bad_tile();
  const options_map parts = {{"w", tile.substr(0, x)}, {"h", tile.substr(x + 1)}};
  const std::vector<parameter> part_names = {{"w", "", ""}, {"h", "", ""}};
  try {
    s.tile_width = static_cast<int>(integer_option(parts, part_names, "w", 0, s.width));
    s.tile_height = static_cast<int>(integer_option(parts, part_names, "h", 0, s.height));
  } catch (const std::invalid_argument&) {
    throw bad_tile();
  }
  if ((s.tile_width == 0) != (s.tile_height == 0) ||
      (s.tile_width > 0 && (s.width % s.tile_width != 0 || s.height % s.tile_height != 0))) {
    throw bad_tile();
  }
  return s;
}

workload_traits raycast_traits() {
  return {.area = "switching",
          .baselines = {.persistent = "termination-only driver",
                        .floor = "",
                        .missing = "the ray caster has no divergence-free version of its work "
                                   "(the rays' sample counts and shading differ per pixel)"}};
}

//! An entry whose tunables are the switching ones.
template <class Runner, class Settings>
entry switching_entry(std::string name, std::vector<parameter> (*parameters)(),
                      Settings (*parse)(const options_map&), workload_traits (*traits)()) {
  return entry_of<Settings>({.name = std::move(name),
                             .parameters = parameters,
                             .parse = parse,
                             .build = build_as<Runner, Settings>,
                             .traits = traits,
                             .tunables = switching_tunable_parameters,
                             .check_tunables = [](const options_map& values, const Settings&) {
                               (void)read_tunables(values);
                             }});
}

}  // namespace

switching_tunables parse_switching_tunables(const std::string& workload,
                                            const options_map& values) {
  reject_unknown(workload, values, switching_tunable_parameters());
  return read_tunables(values);
}

variant variant_of(const schedule_arguments& args, const switching_tunables& t) {
  variant v;
  v.schedule = args;
  v.schedule.switching.switch_every = t.switch_every;
  v.contexts_per_warp = t.contexts_per_warp;
  return v;
}

// ---------------------------------------------------------------------------------------------
// The Monte Carlo branch test as a workload

std::string montecarlo_branch_runner::name() const {
  return "montecarlo-branch";
}
std::uint64_t montecarlo_branch_runner::num_tasks() const {
  return settings().tasks;
}
workload_traits montecarlo_branch_runner::traits() const {
  return mc_branch_traits();
}
timing_stats montecarlo_branch_runner::time_floor(const timing_options& options) {
  const float p = settings().probability;
  const std::uint32_t inner = settings().inner;
  set_probability(1.0f);
  timing_stats full;
  try {
    full = time_vanilla(options);
  } catch (...) {
    set_probability(p);
    throw;
  }
  set_probability(p);
  const double scale = montecarlo_branch_work_share(p, inner);
  return {full.median_ms * scale, full.min_ms * scale, full.max_ms * scale, full.repetitions};
}
verification_report montecarlo_branch_runner::verify_scheduled(const schedule_arguments& args) {
  return check(scheduled_variant(args));
}

// ---------------------------------------------------------------------------------------------
// The ray caster as a workload

std::string raycast_runner::name() const {
  return "raycast";
}
std::uint64_t raycast_runner::num_tasks() const {
  return static_cast<std::uint64_t>(settings().width) *
         static_cast<std::uint64_t>(settings().height);
}
workload_traits raycast_runner::traits() const {
  return raycast_traits();
}
timing_stats raycast_runner::time_vanilla(const timing_options& options) {
  return settings().center_first ? time_vanilla_scheduled_order(options)
                                 : time_vanilla_tile_order(options);
}
timing_stats raycast_runner::time_floor(const timing_options&) {
  no_reference(name(), "floor", raycast_traits().baselines.missing);
}
verification_report raycast_runner::verify_scheduled(const schedule_arguments& args) {
  const auto r = check(scheduled_variant(args), raycast_tolerance, raycast_allowed_fraction);
  verification_report c = r.tasks;
  if (r.pixels_differing > 0) {
    c.detail += (c.detail.empty() ? "" : "; ") + std::to_string(r.pixels_differing) +
                " pixels differ from vanilla (largest channel difference " +
                std::to_string(r.max_channel_difference) + ", tolerance 2 on 0.1% of them)";
  }
  return c;
}

}  // namespace microsched::switching_workloads

namespace microsched::workloads::registry {

std::vector<entry> switching_entries() {
  namespace sw = switching_workloads;
  return {
      sw::switching_entry<sw::montecarlo_branch_runner>(
          "montecarlo-branch", sw::mc_branch_parameters, sw::parse_mc_branch, sw::mc_branch_traits),
      sw::switching_entry<sw::raycast_runner>("raycast", sw::raycast_parameters, sw::parse_raycast,
                                              sw::raycast_traits)};
}

}  // namespace microsched::workloads::registry
