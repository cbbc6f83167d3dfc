// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file switching_workloads.hpp
//! Host API of the switching workloads (Monte Carlo branch test, isosurface ray caster): each
//! owns its device buffers and runs the vanilla kernel (the program with every managed branch
//! an ordinary branch), the termination-only persistent driver, and the context-switching driver
//! under a chosen variant; it times them with CUDA events and checks a run against vanilla.
//! Plain C++ (pimpl), so samples and benchmarks compile without nvcc.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "microsched/measure/timing_stats.hpp"
#include "microsched/schedule/schedule_arguments.hpp"
#include "microsched/switching/branch_forms.hpp"
#include "workload.hpp"

namespace microsched::switching_workloads {

//! One context-switching configuration.
struct variant {
  schedule_arguments schedule{};
  int contexts_per_warp = 64;  //!< one of compiled_pool_sizes()
};

//! The tunables of both switching workloads (workload::set_tunables): the pool and deferred
//! switching.
struct switching_tunables {
  int contexts_per_warp = 64;  //!< one of compiled_pool_sizes()
  int switch_every = 1;        //!< vote and switch on every n-th visit of a managed branch
};

//! The library's default on a workload: the automatic switching schedule
//! (automatic_switching.cuh), decided on runs before the timed ones.
struct default_times {
  timing_stats chosen;       //!< the default, once decided
  timing_stats best_direct;  //!< the fastest direct form it timed, timed in turns with it
  std::string choice;        //!< the chosen form
  std::string direct_form;   //!< the fastest direct form
  std::string report;        //!< every form's time and what the choice cost
  double calibration_ms = 0;
};

//! One form of the automatic list checked (verify_forms).
struct form_check {
  std::string form;
  workloads::verification_report report;
};

//! Pool sizes (contexts per warp) the runners are compiled for.
[[nodiscard]] std::vector<int> compiled_pool_sizes();
//! "hybrid chunk=64 blocks/SM=4, 64 contexts/warp, immediate"
[[nodiscard]] std::string to_string(const variant& v);
//! What the last time_switching() of either runner ran: the automatic schedule's choice and
//! each candidate's time, or "fixed schedule: ...".
[[nodiscard]] std::string last_switching_schedule();
namespace detail {
void set_last_switching_schedule(std::string report);
}  // namespace detail

//! The variant a workload's scheduled run of `args` takes under `t`.
[[nodiscard]] variant variant_of(const schedule_arguments& args, const switching_tunables& t);

//! The tunables of switching workload `workload` from `values` (switching_registry.cpp); throws
//! std::invalid_argument naming an unknown tunable or a bad value.
[[nodiscard]] switching_tunables parse_switching_tunables(const std::string& workload,
                                                          const workloads::options_map& values);

//! What both switching runners share as workloads (CRTP): a scheduled run takes
//! variant_of(its schedule, the tunables), the persistent reference is the termination-only
//! driver, and the kernel's resources are text in schedule_report().
template <class Runner>
class switching_workload : public workloads::workload {
 public:
  [[nodiscard]] std::uint64_t total_steps() override { return 0; }
  void set_tunables(const workloads::options_map& values) override {
    tunables_ = parse_switching_tunables(name(), values);
  }
  timing_stats time_warp_persistent(const timing_options& options) override {
    return runner().time_termination(schedule_arguments{}, options);
  }
  timing_stats time_scheduled(const schedule_arguments& args,
                              const timing_options& options) override {
    return runner().time_switching(scheduled_variant(args), options);
  }
  [[nodiscard]] std::vector<workloads::resource_report> resources(
      const schedule_arguments&) override {
    return {};
  }
  [[nodiscard]] std::string schedule_report(const schedule_arguments& args) override {
    const variant v = scheduled_variant(args);
    return to_string(v) + "\n" + runner().resources(v);
  }

 protected:
  [[nodiscard]] variant scheduled_variant(const schedule_arguments& args) const {
    return variant_of(args, tunables_);
  }

 private:
  Runner& runner() { return static_cast<Runner&>(*this); }
  switching_tunables tunables_;
};

// ---------------------------------------------------------------------------------------------
struct montecarlo_branch_settings {
  std::uint64_t tasks = 1u << 20;
  float probability = 0.01f;  //!< chance that an outer iteration enters the branch
  std::uint32_t outer = 1000;
  std::uint32_t inner = 1000;
  unsigned long long seed = 1234;
  //! Outer iterations one step marches at most, stopping at the first that enters the branch
  //! (1..4096); the sums do not depend on it.
  std::uint32_t march_window = 1;
};

//! The share of the work at p = 1 that a run at probability `p` does, counted in Philox calls
//! (the cost of every number drawn): one per outer iteration, plus one per four numbers of the
//! branch's `inner` with probability p. Vanilla at p = 1 (no divergence) times this is the ideal.
[[nodiscard]] inline double montecarlo_branch_work_share(double p, std::uint32_t inner) {
  const double branch_calls = static_cast<double>((inner + 3) / 4);
  return (1.0 + p * branch_calls) / (1.0 + branch_calls);
}

//! The registry's "montecarlo-branch" workload (switching_registry.cpp) and the benchmarks'
//! runner of its baselines and studies.
class montecarlo_branch_runner final : public switching_workload<montecarlo_branch_runner> {
 public:
  explicit montecarlo_branch_runner(const montecarlo_branch_settings& settings);
  ~montecarlo_branch_runner();
  montecarlo_branch_runner(const montecarlo_branch_runner&) = delete;
  montecarlo_branch_runner& operator=(const montecarlo_branch_runner&) = delete;

  [[nodiscard]] const montecarlo_branch_settings& settings() const;
  //! Changes p (the reference is recomputed on the next check).
  void set_probability(float p);
  //! Outer iterations per step (1..4096), for every kernel; the outputs stay the same.
  void set_march_window(std::uint32_t window);
  [[nodiscard]] std::string describe() const override;

  timing_stats time_vanilla(const timing_options& options) override;
  //! The termination-divergence driver on the same program (branches stay divergent).
  timing_stats time_termination(const schedule_arguments& args, const timing_options& options);
  timing_stats time_switching(const variant& v, const timing_options& options);
  //! The default (automatic switching: direct and switching forms at several windows).
  default_times time_default(const timing_options& options);
  //! Every form of the default's list: each task once, sums equal to vanilla's.
  std::vector<form_check> verify_forms();
  //! The wavefront baseline (wavefront.cuh): each task steps until it needs the branch or
  //! ends; the tasks waiting for the branch are compacted into a queue (CUB block scans) and
  //! the next round's kernel runs the branch for them in full warps; rounds until none waits.
  timing_stats time_wavefront(const timing_options& options);
  //! Poisons outputs, runs with per-task counters, compares sums and entries with vanilla.
  workloads::verification_report check(const variant& v);
  //! check() for the wavefront baseline.
  workloads::verification_report verify_wavefront();
  //! Rounds of the last wavefront run (0 before the first).
  [[nodiscard]] int wavefront_rounds() const;
  //! Registers, shared memory, occupancy and grid of the switching kernel for `v`.
  [[nodiscard]] std::string resources(const variant& v);
  //! Mean branch entries per task in the last vanilla reference (sizes the ideal line).
  [[nodiscard]] double mean_entries();

  // The rest of the workload interface (switching_workload has the shared part).
  using switching_workload::resources;
  [[nodiscard]] std::string name() const override;
  [[nodiscard]] std::uint64_t num_tasks() const override;
  [[nodiscard]] workloads::workload_traits traits() const override;
  //! The ideal: vanilla at p = 1 (every lane enters the branch: no divergence), scaled by the
  //! work at p (montecarlo_branch_work_share).
  timing_stats time_floor(const timing_options& options) override;
  workloads::verification_report verify_scheduled(const schedule_arguments& args) override;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// ---------------------------------------------------------------------------------------------
struct raycast_settings {
  int width = 512;
  int height = 512;
  float step_size = 0.05f;
  //! Samples one step marches at most (stops at the first crossing); the image does not depend
  //! on it, the per-visit cost of the scheduler is paid once per window.
  int march_window = 16;
  //! Empty-space skipping (a Lipschitz bound of psi): fewer samples taken, the same image.
  bool skip_empty = false;
  //! Task order: 0 x 0 = row-major (task t is pixel t, a warp of the vanilla kernel is 32
  //! pixels of one row: the textbook mapping); otherwise tiles of tile_width x tile_height
  //! pixels, row-major inside a tile and tiles row-major, so consecutive tasks are neighbouring
  //! pixels (8 x 4: a vanilla warp, and a chunk of 32 from the task pool, is an 8 x 4 tile).
  //! Both must divide the image size. The image does not depend on it.
  int tile_width = 0;
  int tile_height = 0;
  //! Scheduled runs (switching, termination only): the tasks in 8x4 tiles (when they divide the
  //! image; else single pixels), the tiles whose centre ray passes closest to the orbital's
  //! centre, the most expensive, first (longest-first against the tail of a run that holds
  //! nearly every ray at once). Vanilla keeps the tile order above. The image is the same.
  bool center_first = false;
};

//! Diagnostics of one run (raycast_runner::profile_*): not timed. Completion: the time from the
//! first task's begin by which a fraction of the tasks had ended (%globaltimer stamps).
struct run_profile {
  bool counted = false;           //!< visit counters below are filled (switching runs)
  double steps = 0;               //!< visits of the step, summed over warps
  double active_lanes = 0;        //!< sum over visits of the lanes active before the step
  double then_steps = 0;          //!< visits in which some lane ran the then path (shading)
  double then_lanes = 0;          //!< sum over those visits of the lanes running it
  double begin_span_ms = 0;       //!< first to last begin
  std::vector<double> fractions;  //!< 0.1 0.25 0.5 0.75 0.9 0.95 0.99 1
  std::vector<double> end_ms;     //!< time by which that fraction of the tasks had ended
};

//! The ray caster's ideal under the current settings (raycast_runner::measure_ideal): the work
//! a run does, counted, priced at the rates of kernels without divergence.
struct raycast_ideal {
  std::uint64_t rays = 0;
  std::uint64_t samples = 0;   //!< samples of psi taken (with skipping: those not skipped)
  std::uint64_t shades = 0;    //!< crossings shaded
  bool image_matches = false;  //!< the counting run's image equals vanilla's bit for bit
  double ray_ms = 0;           //!< one thread per ray that begins and ends it, nothing between
  double sample_ns = 0;  //!< per sample: every thread takes the same number (ray_ms taken off)
  double shade_ns = 0;   //!< per shade: every thread shades the same number (ray_ms taken off)
  //! The longest of the heaviest rays run alone in one thread (the tail's bound: no schedule
  //! that runs each ray in one thread ends sooner), and that ray's samples and shades.
  double longest_ray_ms = 0;
  unsigned longest_ray_samples = 0;
  unsigned longest_ray_shades = 0;
  //! ray_ms + samples x sample_ns + shades x shade_ns
  [[nodiscard]] double ideal_ms() const {
    return ray_ms +
           (static_cast<double>(samples) * sample_ns + static_cast<double>(shades) * shade_ns) *
               1e-6;
  }
};

//! Result of comparing a scheduled image with the vanilla one.
struct image_check {
  workloads::verification_report
      tasks;                           //!< exactly once; `mismatched` counts pixels over tolerance
  std::uint64_t pixels_differing = 0;  //!< any channel differs at all
  int max_channel_difference = 0;
};

//! The fastest vanilla of a search over march windows and task orders
//! (raycast_runner::time_vanilla_best).
struct vanilla_search {
  //! The block sizes searched: what vanilla kernels commonly use, and the smaller block a user
  //! tries where registers leave part of an SM unused.
  static constexpr int block_sizes[] = {256, 128};
  timing_stats stats;  //!< the fastest one's timing, timed afresh after the search
  int march_window = 1;
  //! "rows", "8x4", "16x16" (tiles), "center_first" (8x4 tiles, expensive first)
  std::string order;
  int block_threads = block_sizes[0];
  std::vector<std::pair<std::string, double>> tried;  //!< "8x4 w64" -> median ms, every one
  //! "8x4 w64", with " b128" for blocks other than the first size.
  [[nodiscard]] static std::string label(const std::string& order, int window, int threads) {
    std::string text = order + " w" + std::to_string(window);
    if (threads != block_sizes[0]) text += " b" + std::to_string(threads);
    return text;
  }
  [[nodiscard]] std::string label() const { return label(order, march_window, block_threads); }
};

//! The registry's "raycast" workload (switching_registry.cpp) and the benchmarks' and the
//! sample's runner of its baselines, searches and studies.
class raycast_runner final : public switching_workload<raycast_runner> {
 public:
  explicit raycast_runner(const raycast_settings& settings);
  ~raycast_runner();
  raycast_runner(const raycast_runner&) = delete;
  raycast_runner& operator=(const raycast_runner&) = delete;

  [[nodiscard]] const raycast_settings& settings() const;
  void set_step_size(float step);
  //! Samples per step (1..4096); the image stays the same, so the reference is kept.
  void set_march_window(int window);
  //! Empty-space skipping on or off (the image stays the same, so the reference is kept).
  void set_skip_empty(bool skip);
  //! Task order: tiles of w x h pixels, or 0 x 0 for row-major (the image stays the same).
  void set_tile(int w, int h);
  //! Scheduled runs: expensive tiles first (see raycast_settings::center_first).
  void set_center_first(bool on);
  [[nodiscard]] std::string describe() const override;

  //! Vanilla in the settings' tile order, whatever center_first.
  timing_stats time_vanilla_tile_order(const timing_options& options);
  //! Vanilla in the scheduled runs' task order (center_first's expensive tiles first when set):
  //! the order microsched gets, given to vanilla too, so that a speedup is not an order effect.
  timing_stats time_vanilla_scheduled_order(const timing_options& options);
  //! The ideal under the current settings (step, skipping, shading; the window and the task
  //! order change neither the work nor the image): counts the work with one vanilla run, checks
  //! its image against vanilla's, and times the uniform-work kernels (raycast_ideal.cuh).
  raycast_ideal measure_ideal(const timing_options& options);
  //! The windowed vanilla a user tunes by hand: vanilla at each of `windows` in each task order
  //! (rows, 8x4 and 16x16 tiles where they divide the image, expensive 8x4 tiles first); the
  //! fastest, and every time tried. The settings are as before afterwards.
  vanilla_search time_vanilla_best(const std::vector<int>& windows, const timing_options& options);
  timing_stats time_termination(const schedule_arguments& args, const timing_options& options);
  timing_stats time_switching(const variant& v, const timing_options& options);
  //! The default (automatic switching: the direct mapping at windows 16, 64 and 256 in every
  //! task order, and switching forms); the settings' window and order do not apply to it.
  default_times time_default(const timing_options& options);
  //! Every form of the default's list: each ray once, the image within `tolerance` of vanilla's
  //! on all but `allowed_fraction` of the pixels (the report's `mismatched`).
  std::vector<form_check> verify_forms(int tolerance, double allowed_fraction);
  //! The wavefront baseline (wavefront.cuh) under the current settings (march window,
  //! skipping, and the scheduled runs' task order: center_first honoured): every ray marches to
  //! its next crossing or its end; the crossed rays are compacted into a queue (CUB block
  //! scans) and the next round's kernel shades them in full warps and marches them on.
  timing_stats time_wavefront(const timing_options& options);
  //! check() for the wavefront baseline.
  image_check verify_wavefront(int tolerance, double allowed_fraction);
  //! Rounds of the last wavefront run (0 before the first).
  [[nodiscard]] int wavefront_rounds() const;
  //! The expert split wavefront (raycast_split_wavefront.cuh) under the current settings (march
  //! window, skipping, the scheduled runs' task order): a march-only kernel takes every ray to
  //! its next crossing or its end, a shade kernel shades the crossed rays in full warps; the
  //! rays' state moves between device-side queues as structure-of-arrays.
  timing_stats time_expert_wavefront(const timing_options& options);
  //! check() for the expert split wavefront.
  image_check verify_expert_wavefront(int tolerance, double allowed_fraction);
  //! Exactly once, and every channel within `tolerance` of vanilla on all but
  //! `allowed_fraction` of the pixels.
  image_check check(const variant& v, int tolerance, double allowed_fraction);
  //! RGBA8 per pixel, row-major from the top.
  [[nodiscard]] std::vector<std::uint32_t> render_vanilla();
  //! The vanilla image at window 1 without skipping, row-major (the textbook kernel), whatever
  //! the settings: the window, skipping and the tile order must not change the image.
  [[nodiscard]] std::vector<std::uint32_t> render_vanilla_textbook();
  [[nodiscard]] std::vector<std::uint32_t> render_switching(const variant& v);
  [[nodiscard]] std::string resources(const variant& v);
  //! One untimed run with visit counters and completion stamps; the vanilla kernel under the
  //! current settings (completion stamps only).
  [[nodiscard]] run_profile profile_switching(const variant& v);
  [[nodiscard]] run_profile profile_vanilla();

  // The rest of the workload interface (switching_workload has the shared part).
  using switching_workload::resources;
  [[nodiscard]] std::string name() const override;
  [[nodiscard]] std::uint64_t num_tasks() const override;
  [[nodiscard]] workloads::workload_traits traits() const override;
  //! In the scheduled runs' task order when center_first is on, so that a speedup is not an
  //! order effect; else in the tile order.
  timing_stats time_vanilla(const timing_options& options) override;
  //! Throws: the ray caster has no divergence-free version of its work.
  timing_stats time_floor(const timing_options& options) override;
  //! check() at the raycast sample's tolerance (2 per channel on 0.1% of the pixels).
  workloads::verification_report verify_scheduled(const schedule_arguments& args) override;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace microsched::switching_workloads
