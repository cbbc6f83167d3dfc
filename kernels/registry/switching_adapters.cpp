// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The switching workloads (Monte Carlo branch test, isosurface ray caster) behind the workload
// interface, through their runners' public API (switching_workloads.hpp). The schedule applies;
// the tunables are the pool and deferred switching.
#include <stdexcept>

#include "options.hpp"
#include "registry/adapter_support.hpp"
#include "switching_workloads.hpp"

namespace microsched::workloads::adapters {

namespace {

namespace sw = switching_workloads;

//! The ray caster's image may differ from vanilla's by rounding in the shading: the check allows
//! a channel difference of 2 on at most 0.1% of the pixels (as samples/switching/raycast does).
constexpr int raycast_tolerance = 2;
constexpr double raycast_allowed_fraction = 0.001;

std::vector<parameter> switching_tunables(bool) {
  return {{"contexts", "64",
           "contexts per warp in the pool: one of the compiled sizes, " +
               spell_list(sw::compiled_pool_sizes())},
          {"switch-every", "1",
           "deferred switching: vote and switch on every n-th visit of a managed branch (1: "
           "every visit)"}};
}

struct switching_tunable_values {
  int contexts = 64;
  int switch_every = 1;
};

switching_tunable_values parse_switching_tunables(const options_map& options, bool raycast) {
  const auto known = switching_tunables(raycast);
  switching_tunable_values v;
  v.contexts = listed_integer_option(options, known, "contexts", sw::compiled_pool_sizes());
  v.switch_every = static_cast<int>(integer_option(options, known, "switch-every", 1, 1 << 20));
  return v;
}

sw::variant make_variant(const schedule_arguments& args, const switching_tunable_values& t) {
  sw::variant v;
  v.schedule = args;
  v.schedule.switching.switch_every = t.switch_every;
  v.contexts_per_warp = t.contexts;
  return v;
}

// ---------------------------------------------------------------------------------------------
// Monte Carlo branch test

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
  workload_traits t;
  t.area = "switching";
  t.baselines.persistent = "termination-only driver";
  t.baselines.floor = "ideal";
  return t;
}

//! What both switching adapters share: the runner, the tunables, and the resources report (the
//! runner reports its kernel's resources as text, in schedule_report()).
template <class Runner>
class switching_adapter : public workload {
 public:
  template <class Settings>
  explicit switching_adapter(const Settings& settings) : runner_(settings) {}
  [[nodiscard]] std::vector<resource_report> resources(const schedule_arguments&) override {
    return {};
  }
  [[nodiscard]] std::string schedule_report(const schedule_arguments& args) override {
    const auto v = make_variant(args, tunables_);
    return sw::to_string(v) + "\n" + runner_.resources(v);
  }

 protected:
  Runner runner_;
  switching_tunable_values tunables_;
};

class mc_branch_workload final : public switching_adapter<sw::montecarlo_branch_runner> {
 public:
  explicit mc_branch_workload(const sw::montecarlo_branch_settings& s) : switching_adapter(s) {}
  [[nodiscard]] std::string name() const override { return "montecarlo-branch"; }
  [[nodiscard]] std::string describe() const override { return runner_.describe(); }
  [[nodiscard]] std::uint64_t num_tasks() const override { return runner_.settings().tasks; }
  [[nodiscard]] std::uint64_t total_steps() override { return 0; }
  [[nodiscard]] workload_traits traits() const override { return mc_branch_traits(); }
  void set_tunables(const options_map& values) override {
    reject_unknown(name(), values, switching_tunables(false));
    tunables_ = parse_switching_tunables(values, false);
  }

  timing_stats time_vanilla(const timing_options& o) override { return runner_.time_vanilla(o); }
  //! The termination-only persistent driver on the same program, automatic schedule.
  timing_stats time_warp_persistent(const timing_options& o) override {
    return runner_.time_termination(schedule_arguments{}, o);
  }
  //! The ideal: vanilla at p = 1 (every lane enters the branch: no divergence), scaled by the
  //! work at p (montecarlo_branch_work_share).
  timing_stats time_floor(const timing_options& o) override {
    const float p = runner_.settings().probability;
    const std::uint32_t inner = runner_.settings().inner;
    runner_.set_probability(1.0f);
    timing_stats full;
    try {
      full = runner_.time_vanilla(o);
    } catch (...) {
      runner_.set_probability(p);
      throw;
    }
    runner_.set_probability(p);
    const double scale = sw::montecarlo_branch_work_share(p, inner);
    return {full.median_ms * scale, full.min_ms * scale, full.max_ms * scale, full.repetitions};
  }
  timing_stats time_scheduled(const schedule_arguments& args, const timing_options& o) override {
    return runner_.time_switching(make_variant(args, tunables_), o);
  }
  verification_report verify_scheduled(const schedule_arguments& args) override {
    return runner_.check(make_variant(args, tunables_));
  }
};

// ---------------------------------------------------------------------------------------------
// Isosurface ray caster

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
  workload_traits t;
  t.area = "switching";
  t.baselines.persistent = "termination-only driver";
  t.baselines.floor = "";
  t.baselines.missing =
      "the ray caster has no divergence-free version of its work (the rays' sample counts "
      "and shading differ per pixel)";
  return t;
}

class raycast_workload final : public switching_adapter<sw::raycast_runner> {
 public:
  explicit raycast_workload(const sw::raycast_settings& s) : switching_adapter(s) {}
  [[nodiscard]] std::string name() const override { return "raycast"; }
  [[nodiscard]] std::string describe() const override { return runner_.describe(); }
  [[nodiscard]] std::uint64_t num_tasks() const override {
    return static_cast<std::uint64_t>(runner_.settings().width) *
           static_cast<std::uint64_t>(runner_.settings().height);
  }
  [[nodiscard]] std::uint64_t total_steps() override { return 0; }
  [[nodiscard]] workload_traits traits() const override { return raycast_traits(); }
  void set_tunables(const options_map& values) override {
    reject_unknown(name(), values, switching_tunables(true));
    tunables_ = parse_switching_tunables(values, true);
  }

  //! In the scheduled runs' task order when center-first is on, so that a speedup is not an
  //! order effect.
  timing_stats time_vanilla(const timing_options& o) override {
    return runner_.settings().center_first ? runner_.time_vanilla_scheduled_order(o)
                                           : runner_.time_vanilla(o);
  }
  timing_stats time_warp_persistent(const timing_options& o) override {
    return runner_.time_termination(schedule_arguments{}, o);
  }
  timing_stats time_floor(const timing_options&) override {
    no_reference(name(), "floor", raycast_traits().baselines.missing);
  }
  timing_stats time_scheduled(const schedule_arguments& args, const timing_options& o) override {
    return runner_.time_switching(make_variant(args, tunables_), o);
  }
  verification_report verify_scheduled(const schedule_arguments& args) override {
    const auto r =
        runner_.check(make_variant(args, tunables_), raycast_tolerance, raycast_allowed_fraction);
    verification_report c = r.tasks;
    if (r.pixels_differing > 0) {
      c.detail += (c.detail.empty() ? "" : "; ") + std::to_string(r.pixels_differing) +
                  " pixels differ from vanilla (largest channel difference " +
                  std::to_string(r.max_channel_difference) + ", tolerance 2 on 0.1% of them)";
    }
    return c;
  }
};

template <class Workload, class Settings>
entry switching_entry(std::string name, std::vector<parameter> (*parameters)(),
                      Settings (*parse)(const options_map&), workload_traits (*traits)(),
                      bool raycast) {
  entry e;
  e.name = name;
  e.parameters = parameters;
  e.tunables = [raycast] { return switching_tunables(raycast); };
  e.traits = traits;
  e.validate = [=](const options_map& options) {
    const auto tunables = switching_tunables(raycast);
    reject_unknown(name, options, joined(parameters(), tunables));
    (void)parse(select(options, parameters()));
    (void)parse_switching_tunables(select(options, tunables), raycast);
  };
  e.make = [=](const options_map& options) -> std::unique_ptr<workload> {
    const auto tunables = switching_tunables(raycast);
    reject_unknown(name, options, joined(parameters(), tunables));
    const Settings settings = parse(select(options, parameters()));
    (void)parse_switching_tunables(select(options, tunables), raycast);  // before the GPU
    auto w = std::make_unique<Workload>(settings);
    w->set_tunables(select(options, tunables));
    return w;
  };
  return e;
}

}  // namespace

std::vector<entry> switching_entries() {
  return {switching_entry<mc_branch_workload>("montecarlo-branch", mc_branch_parameters,
                                              parse_mc_branch, mc_branch_traits, false),
          switching_entry<raycast_workload>("raycast", raycast_parameters, parse_raycast,
                                            raycast_traits, true)};
}

}  // namespace microsched::workloads::adapters
