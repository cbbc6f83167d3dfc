// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "raycast/raycast_ideal.cuh"
#include "raycast/raycast_program.cuh"
#include "raycast/raycast_split_wavefront.cuh"
#include "raycast/raycast_switching.cuh"
#include "runner_machinery.cuh"
#include "visit_stats.cuh"
#include "wavefront.cuh"

namespace microsched::switching_workloads {

using kernels::raycast::raycast_program;

namespace {
void validate_tile(const raycast_settings& s, int w, int h) {
  if (w == 0 && h == 0) return;
  if (w < 1 || s.width % w != 0)
    throw_invalid("tile width", w, "must divide the image width (or 0x0: rows)");
  if (h < 1 || s.height % h != 0)
    throw_invalid("tile height", h, "must divide the image height (or 0x0: rows)");
}
}  // namespace

//! Pixels in 8x4 tiles (single pixels when 8x4 does not divide the image), the tiles ordered by
//! how close their centre ray passes to the orbital's centre (the origin), closest first.
static std::vector<std::uint32_t> center_first_order(int width, int height) {
  using kernels::raycast::vec3;
  const auto cam = kernels::raycast::make_camera(width, height);
  const int tw = width % 8 == 0 && height % 4 == 0 ? 8 : 1;
  const int th = tw == 8 ? 4 : 1;
  const int tiles_x = width / tw;
  const int tiles = tiles_x * (height / th);
  std::vector<std::pair<float, int>> keyed(static_cast<std::size_t>(tiles));
  for (int i = 0; i < tiles; ++i) {
    const float cx = static_cast<float>((i % tiles_x) * tw) + 0.5f * static_cast<float>(tw);
    const float cy = static_cast<float>((i / tiles_x) * th) + 0.5f * static_cast<float>(th);
    const float u = (cx / static_cast<float>(width) * 2.0f - 1.0f) * cam.tan_half_fov;
    const float v = (1.0f - cy / static_cast<float>(height) * 2.0f) * cam.tan_half_fov;
    const vec3 dir = kernels::raycast::normalize(cam.forward + u * cam.right + v * cam.up);
    const float along = kernels::raycast::dot(cam.eye, dir);
    keyed[static_cast<std::size_t>(i)] = {kernels::raycast::dot(cam.eye, cam.eye) - along * along,
                                          i};
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::uint32_t> order;
  order.reserve(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  for (const auto& [key, i] : keyed) {
    const int x0 = (i % tiles_x) * tw;
    const int y0 = (i / tiles_x) * th;
    for (int y = y0; y < y0 + th; ++y) {
      for (int x = x0; x < x0 + tw; ++x) order.push_back(static_cast<std::uint32_t>(y * width + x));
    }
  }
  return order;
}

//! Times the heaviest rays alone through `time_ray(pixel)`; the longest goes to `r`.
template <class TimeRay>
static void time_longest_ray(const std::vector<std::uint32_t>& per_ray, raycast_ideal& r,
                             TimeRay&& time_ray) {
  const double shade_weight = r.sample_ns > 0 ? r.shade_ns / r.sample_ns : 1.0;
  for (const std::uint32_t pixel : detail::heaviest_rays(per_ray, shade_weight, 4)) {
    const double ms = time_ray(pixel);
    if (ms > r.longest_ray_ms) {
      r.longest_ray_ms = ms;
      r.longest_ray_samples = detail::ray_samples(per_ray[pixel]);
      r.longest_ray_shades = detail::ray_shades(per_ray[pixel]);
    }
  }
}

struct raycast_runner::impl {
  raycast_settings settings;
  cuda_stream stream;
  event_timer timer;
  device_buffer<std::uint32_t> image, reference, counts;
  bool have_reference = false;
  int vanilla_threads = baselines::vanilla_block_threads;  //!< the timed vanilla's block size

  explicit impl(const raycast_settings& s)
      : settings(s), image(pixels()), reference(pixels()), counts(pixels()) {}

  [[nodiscard]] task_id pixels() const {
    return static_cast<task_id>(settings.width) * static_cast<task_id>(settings.height);
  }
  [[nodiscard]] raycast_program program(std::uint32_t* out) const {
    raycast_program p;
    p.view.cam = kernels::raycast::make_camera(settings.width, settings.height);
    p.view.step_size = settings.step_size;
    p.view.march_window = settings.march_window;
    p.view.skip_empty = settings.skip_empty;
    p.view.tile_w = settings.tile_width;
    p.view.tile_h = settings.tile_height;
    p.image = out;
    return p;
  }
  [[nodiscard]] raycast_program program() const { return program(image.data()); }

  device_buffer<std::uint32_t> order;  //!< center_first's table, built on first use
  int order_width = 0, order_height = 0;
  [[nodiscard]] const std::uint32_t* expensive_first() {
    if (order_width != settings.width || order_height != settings.height) {
      order = device_buffer<std::uint32_t>(center_first_order(settings.width, settings.height));
      order_width = settings.width;
      order_height = settings.height;
    }
    return order.data();
  }
  //! The program of the scheduled runs: with center_first, the task order table.
  [[nodiscard]] raycast_program scheduled(std::uint32_t* out) {
    raycast_program p = program(out);
    if (!settings.center_first) return p;
    p.view.pixel_order = expensive_first();
    return p;
  }
  //! The default's program: every task order available (the expensive-first table built).
  [[nodiscard]] raycast_program with_orders(std::uint32_t* out) {
    raycast_program p = program(out);
    p.view.expensive_first = expensive_first();
    return p;
  }
  [[nodiscard]] raycast_program scheduled() { return scheduled(image.data()); }

  using wavefront_t = detail::wavefront<kernels::raycast::ray_state, 1>;
  std::unique_ptr<wavefront_t> wave;  //!< the wavefront baseline's buffers, made on first use
  wavefront_t& wavefront() {
    if (!wave || wave->tasks() != pixels()) wave = std::make_unique<wavefront_t>(pixels());
    return *wave;
  }

  //! The expert split wavefront's buffers, made on first use.
  std::unique_ptr<detail::raycast_split_wavefront> split;
  detail::raycast_split_wavefront& split_wavefront() {
    if (!split || split->rays() != pixels()) {
      split = std::make_unique<detail::raycast_split_wavefront>(pixels());
    }
    return *split;
  }

  //! Compares the image and the counters of a counted run with the reference.
  image_check compare(int tolerance, double allowed_fraction);

  //! Poisons the image, zeroes the counters, runs `run(stream, counters)` and compares.
  template <class Run>
  image_check checked_run(int tolerance, double allowed_fraction, Run&& run) {
    ensure_reference();
    image.fill_bytes(0xff, stream.get());
    counts.fill_bytes(0, stream.get());
    run(stream.get(), counts.data());
    stream.synchronize();
    return compare(tolerance, allowed_fraction);
  }

  void ensure_reference() {
    if (have_reference) return;
    reference.fill_bytes(0xff, stream.get());
    detail::run_vanilla(program(reference.data()), pixels(), stream.get());
    stream.synchronize();
    have_reference = true;
  }
};

raycast_runner::raycast_runner(const raycast_settings& settings) {
  if (settings.width < 1 || settings.width > 16384)
    throw_invalid("width", settings.width, "must be in 1..16384");
  if (settings.height < 1 || settings.height > 16384)
    throw_invalid("height", settings.height, "must be in 1..16384");
  if (!(settings.step_size >= 1e-3f && settings.step_size <= 10.0f)) {
    throw_invalid("step", settings.step_size, "must be in [0.001, 10]");
  }
  if (settings.march_window < 1 || settings.march_window > 4096) {
    throw_invalid("window", settings.march_window, "must be in 1..4096");
  }
  validate_tile(settings, settings.tile_width, settings.tile_height);
  impl_ = std::make_unique<impl>(settings);
}
raycast_runner::~raycast_runner() = default;

const raycast_settings& raycast_runner::settings() const {
  return impl_->settings;
}

void raycast_runner::set_step_size(float step) {
  if (!(step >= 1e-3f && step <= 10.0f)) throw_invalid("step", step, "must be in [0.001, 10]");
  impl_->settings.step_size = step;
  impl_->have_reference = false;
}

void raycast_runner::set_march_window(int window) {
  if (window < 1 || window > 4096) throw_invalid("window", window, "must be in 1..4096");
  impl_->settings.march_window = window;
}

void raycast_runner::set_skip_empty(bool skip) {
  impl_->settings.skip_empty = skip;
}

void raycast_runner::set_tile(int w, int h) {
  validate_tile(impl_->settings, w, h);
  impl_->settings.tile_width = w;
  impl_->settings.tile_height = h;
}

void raycast_runner::set_center_first(bool on) {
  impl_->settings.center_first = on;
}

std::string raycast_runner::describe() const {
  const auto& s = impl_->settings;
  return "raycast psi(3,2,1) " + std::to_string(s.width) + "x" + std::to_string(s.height) +
         " step=" + std::to_string(s.step_size) + " window=" + std::to_string(s.march_window) +
         (s.skip_empty ? ", empty-space skipping" : ", no empty-space skipping") +
         (s.center_first ? ", scheduled runs take expensive 8x4 tiles first" : "") +
         (s.tile_width > 0 ? ", tasks in " + std::to_string(s.tile_width) + "x" +
                                 std::to_string(s.tile_height) + " tiles"
                           : ", tasks row-major");
}

timing_stats raycast_runner::time_vanilla_tile_order(const timing_options& options) {
  const auto program = impl_->program();
  const task_id n = impl_->pixels();
  const int threads = impl_->vanilla_threads;
  return impl_->timer.time([&](cudaStream_t s) { detail::run_vanilla(program, n, s, threads); },
                           options, impl_->stream.get());
}

timing_stats raycast_runner::time_vanilla_scheduled_order(const timing_options& options) {
  const auto program = impl_->scheduled();
  const task_id n = impl_->pixels();
  const int threads = impl_->vanilla_threads;
  return impl_->timer.time([&](cudaStream_t s) { detail::run_vanilla(program, n, s, threads); },
                           options, impl_->stream.get());
}

timing_stats raycast_runner::time_termination(const schedule_arguments& args,
                                              const timing_options& options) {
  return detail::time_termination(impl_->timer, impl_->scheduled(), impl_->pixels(), args, options,
                                  impl_->stream.get());
}

timing_stats raycast_runner::time_switching(const variant& v, const timing_options& options) {
  return detail::raycast_time_switching(impl_->timer, impl_->scheduled(), impl_->pixels(), v,
                                        options, impl_->stream.get());
}

default_times raycast_runner::time_default(const timing_options& options) {
  return detail::raycast_time_default(impl_->timer, impl_->with_orders(impl_->image.data()),
                                      impl_->pixels(), options, impl_->stream.get());
}

std::vector<form_check> raycast_runner::verify_forms(int tolerance, double allowed_fraction) {
  impl_->ensure_reference();
  auto& m = *impl_;
  const cudaStream_t s = m.stream.get();
  const raycast_program base = m.with_orders(m.image.data());
  std::vector<form_check> out;
  for (const auto& f : detail::raycast_default_forms(base)) {
    m.image.fill_bytes(0xff, s);
    m.counts.fill_bytes(0, s);
    detail::raycast_run_form_counted(base, m.counts.data(), m.pixels(), f, s);
    m.stream.synchronize();
    out.push_back(
        {switching::form_name<raycast_program>(f), m.compare(tolerance, allowed_fraction).tasks});
  }
  return out;
}

image_check raycast_runner::impl::compare(int tolerance, double allowed_fraction) {
  auto& m = *this;
  const cudaStream_t s = m.stream.get();
  image_check r;
  r.tasks.tasks = m.pixels();
  const auto counts = m.counts.to_host(s);
  const auto got = m.image.to_host(s);
  const auto want = m.reference.to_host(s);
  for (std::size_t t = 0; t < counts.size(); ++t) {
    if (counts[t] == 0) ++r.tasks.missing;
    if (counts[t] > 1) ++r.tasks.duplicated;
    if (counts[t] != 1 && r.tasks.detail.size() < 200) {
      r.tasks.detail +=
          "pixel " + std::to_string(t) + " ended " + std::to_string(counts[t]) + " times; ";
    }
    if (got[t] == want[t]) continue;
    ++r.pixels_differing;
    int worst = 0;
    for (int c = 0; c < 4; ++c) {
      const int a = static_cast<int>((got[t] >> (8 * c)) & 0xffu);
      const int b = static_cast<int>((want[t] >> (8 * c)) & 0xffu);
      worst = std::max(worst, std::abs(a - b));
    }
    r.max_channel_difference = std::max(r.max_channel_difference, worst);
    if (worst > tolerance) {
      ++r.tasks.mismatched;
      if (r.tasks.detail.size() < 400) {
        r.tasks.detail +=
            "pixel " + std::to_string(t) + " differs by " + std::to_string(worst) + "; ";
      }
    }
  }
  const auto allowed =
      static_cast<std::uint64_t>(allowed_fraction * static_cast<double>(m.pixels()));
  r.tasks.passed = r.tasks.missing == 0 && r.tasks.duplicated == 0 && r.tasks.mismatched <= allowed;
  return r;
}

image_check raycast_runner::check(const variant& v, int tolerance, double allowed_fraction) {
  auto& m = *impl_;
  return m.checked_run(tolerance, allowed_fraction, [&](cudaStream_t s, std::uint32_t* counts) {
    detail::raycast_run_counted(m.scheduled(), counts, m.pixels(), v, s);
  });
}

image_check raycast_runner::verify_wavefront(int tolerance, double allowed_fraction) {
  auto& m = *impl_;
  return m.checked_run(tolerance, allowed_fraction, [&](cudaStream_t s, std::uint32_t* counts) {
    m.wavefront().run(counted_program<raycast_program>{m.scheduled(), counts}, s);
  });
}

timing_stats raycast_runner::time_wavefront(const timing_options& options) {
  auto& wave = impl_->wavefront();
  const auto program = impl_->scheduled();
  return impl_->timer.time([&](cudaStream_t s) { wave.run(program, s); }, options,
                           impl_->stream.get());
}

int raycast_runner::wavefront_rounds() const {
  return impl_->wave ? impl_->wave->rounds() : 0;
}

image_check raycast_runner::verify_expert_wavefront(int tolerance, double allowed_fraction) {
  auto& m = *impl_;
  return m.checked_run(tolerance, allowed_fraction, [&](cudaStream_t s, std::uint32_t* counts) {
    m.split_wavefront().run(m.scheduled(), counts, s);
  });
}

timing_stats raycast_runner::time_expert_wavefront(const timing_options& options) {
  auto& split = impl_->split_wavefront();
  const auto program = impl_->scheduled();
  return impl_->timer.time([&](cudaStream_t s) { split.run(program, nullptr, s); }, options,
                           impl_->stream.get());
}

raycast_ideal raycast_runner::measure_ideal(const timing_options& options) {
  impl_->ensure_reference();
  auto& m = *impl_;
  const cudaStream_t s = m.stream.get();
  const auto view = m.program().view;
  m.image.fill_bytes(0xff, s);
  device_buffer<std::uint32_t> per_ray(m.pixels());
  const auto totals = detail::count_raycast_work(view, m.image.data(), s, per_ray.data());
  raycast_ideal r;
  r.rays = totals.rays;
  r.samples = totals.samples;
  r.shades = totals.shades;
  r.image_matches = m.image.to_host(s) == m.reference.to_host(s);
  // Enough uniform work per thread that a kernel runs far longer than its launch (at 512^2:
  // 256 samples, 8 shades per thread), fewer per thread on larger images; bounded on small ones.
  const double pixels = static_cast<double>(m.pixels());
  const double scale = std::min(262144.0 / pixels, 8.0);
  const int samples = std::max(32, static_cast<int>(256.0 * scale) / 2 * 2);
  const int shades = std::max(2, static_cast<int>(8.0 * scale));
  const auto time_uniform = [&](int sa, int sh) {
    return m.timer
        .time(
            [&](cudaStream_t st) {
              detail::run_uniform_raycast_work(view, sa, sh, m.image.data(), st);
            },
            options, s)
        .median_ms;
  };
  r.ray_ms = time_uniform(0, 0);
  r.sample_ns = (time_uniform(samples, 0) - r.ray_ms) * 1e6 / (pixels * samples);
  r.shade_ns = (time_uniform(0, shades) - r.ray_ms) * 1e6 / (pixels * shades);
  time_longest_ray(per_ray.to_host(s), r, [&](std::uint32_t pixel) {
    return m.timer
        .time([&](cudaStream_t st) { detail::run_one_ray(view, pixel, m.image.data(), st); },
              options, s)
        .median_ms;
  });
  return r;
}

vanilla_search raycast_runner::time_vanilla_best(const std::vector<int>& windows,
                                                 const timing_options& options) {
  if (windows.empty()) throw_invalid("windows", "(none)", "name at least one march window");
  for (const int w : windows) {
    if (w < 1 || w > 4096) throw_invalid("window", w, "must be in 1..4096");
  }
  auto& st = impl_->settings;
  const raycast_settings saved = st;
  struct order {
    const char* name;
    int w, h;
    bool center_first;
  };
  const order orders[] = {{"rows", 0, 0, false},
                          {"8x4", 8, 4, false},
                          {"16x16", 16, 16, false},
                          {"center_first", 0, 0, true}};
  vanilla_search best;
  best.stats.median_ms = 1e300;
  order winner = orders[0];
  int& threads = impl_->vanilla_threads;
  // The search leaves the settings and the vanilla block as they were, on every exit.
  struct restore {
    raycast_settings& st;
    const raycast_settings saved;
    int& threads;
    ~restore() {
      st = saved;
      threads = baselines::vanilla_block_threads;
    }
  } const guard{st, saved, threads};
  for (const int b : vanilla_search::block_sizes) {
    threads = b;
    for (const auto& o : orders) {
      if (o.w > 0 && (st.width % o.w != 0 || st.height % o.h != 0)) continue;
      for (const int w : windows) {
        st.march_window = w;
        st.tile_width = o.w;
        st.tile_height = o.h;
        st.center_first = o.center_first;
        const timing_stats t = time_vanilla(options);  // in the order center_first names
        best.tried.push_back({vanilla_search::label(o.name, w, b), t.median_ms});
        if (t.median_ms < best.stats.median_ms) {
          best.stats = t;
          best.march_window = w;
          best.order = o.name;
          best.block_threads = b;
          winner = o;
        }
      }
    }
  }
  // The fastest of many medians sits low by the choice itself: the winner is timed afresh,
  // as every other row is timed once.
  st.march_window = best.march_window;
  st.tile_width = winner.w;
  st.tile_height = winner.h;
  st.center_first = winner.center_first;
  threads = best.block_threads;
  best.stats = time_vanilla(options);
  return best;
}

std::vector<std::uint32_t> raycast_runner::render_vanilla() {
  impl_->ensure_reference();
  return impl_->reference.to_host(impl_->stream.get());
}

std::vector<std::uint32_t> raycast_runner::render_vanilla_textbook() {
  auto& m = *impl_;
  auto p = m.program(m.image.data());
  p.view.march_window = 1;
  p.view.skip_empty = false;
  p.view.tile_w = 0;  // row-major
  p.view.tile_h = 0;
  m.image.fill_bytes(0xff, m.stream.get());
  detail::run_vanilla(p, m.pixels(), m.stream.get());
  m.stream.synchronize();
  return m.image.to_host(m.stream.get());
}

std::vector<std::uint32_t> raycast_runner::render_switching(const variant& v) {
  auto& m = *impl_;
  detail::raycast_run_switching(m.scheduled(), m.pixels(), v, m.stream.get());
  m.stream.synchronize();
  return m.image.to_host(m.stream.get());
}

std::string raycast_runner::resources(const variant& v) {
  return detail::raycast_resources(impl_->program(), impl_->pixels(), v);
}

namespace {
run_profile summarise(const std::vector<unsigned long long>& begin_ns,
                      const std::vector<unsigned long long>& end_ns) {
  run_profile p;
  if (begin_ns.empty()) return p;
  const auto [first, last] = std::minmax_element(begin_ns.begin(), begin_ns.end());
  p.begin_span_ms = static_cast<double>(*last - *first) * 1e-6;
  std::vector<double> ends(end_ns.size());
  for (std::size_t i = 0; i < ends.size(); ++i) {
    ends[i] = static_cast<double>(end_ns[i] - *first) * 1e-6;
  }
  std::sort(ends.begin(), ends.end());
  p.fractions = {0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0};
  for (const double f : p.fractions) {
    const auto i = static_cast<std::size_t>(f * static_cast<double>(ends.size() - 1) + 0.5);
    p.end_ms.push_back(ends[std::min(i, ends.size() - 1)]);
  }
  return p;
}
}  // namespace

run_profile raycast_runner::profile_switching(const variant& v) {
  auto& m = *impl_;
  const cudaStream_t s = m.stream.get();
  device_buffer<detail::visit_counters> counters(detail::visit_counter_slots);
  device_buffer<unsigned long long> begin_ns(m.pixels()), end_ns(m.pixels());
  counters.fill_bytes(0, s);
  detail::profile_switching_run(m.scheduled(), counters.data(), begin_ns.data(), end_ns.data(),
                                m.pixels(), v, s);
  m.stream.synchronize();
  run_profile p = summarise(begin_ns.to_host(s), end_ns.to_host(s));
  p.counted = true;
  for (const auto& c : counters.to_host(s)) {
    p.steps += static_cast<double>(c.steps);
    p.active_lanes += static_cast<double>(c.active_lanes);
    p.then_steps += static_cast<double>(c.then_steps);
    p.then_lanes += static_cast<double>(c.then_lanes);
  }
  return p;
}

run_profile raycast_runner::profile_vanilla() {
  auto& m = *impl_;
  const cudaStream_t s = m.stream.get();
  device_buffer<unsigned long long> begin_ns(m.pixels()), end_ns(m.pixels());
  detail::profile_vanilla_run(m.program(), begin_ns.data(), end_ns.data(), m.pixels(), s);
  m.stream.synchronize();
  return summarise(begin_ns.to_host(s), end_ns.to_host(s));
}

}  // namespace microsched::switching_workloads
