// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "julia/julia_program.cuh"
#include "julia/julia_workload.hpp"
#include "options.hpp"
#include "task_workload.cuh"

namespace microsched::workloads {

namespace {

template <class T>
class julia_workload final
    : public task_workload<kernels::julia_program<T>, 1, julia_workload_base> {
  using base = task_workload<kernels::julia_program<T>, 1, julia_workload_base>;

 public:
  explicit julia_workload(const julia_settings& s)
      : base(static_cast<task_id>(s.width) * static_cast<task_id>(s.height)), settings_(s) {}

  [[nodiscard]] std::string name() const override { return "julia"; }
  [[nodiscard]] std::string describe() const override {
    return "julia " + std::to_string(settings_.width) + "x" + std::to_string(settings_.height) +
           (settings_.double_precision ? " double" : " float") +
           " crunch=" + std::to_string(settings_.crunch) + " offset=" + format_offset() +
           (settings_.view == "islands" ? "" : " view=" + settings_.view) +
           (settings_.custom_c ? " c=" + format_real(settings_.cx) + "," + format_real(settings_.cy)
                               : "");
  }
  [[nodiscard]] const julia_settings& settings() const override { return settings_; }
  [[nodiscard]] std::vector<std::uint32_t> render_scheduled(
      const schedule_arguments& args) override {
    this->run_scheduled_once(args);
    return this->last_output(0);
  }

 protected:
  [[nodiscard]] kernels::julia_program<T> make_program(
      const typename base::outputs& out) const override {
    kernels::julia_program<T> p;
    p.view = kernels::make_julia_view<T>(settings_.width, settings_.height, settings_.offset,
                                         *kernels::find_julia_scene(settings_.view));
    p.cx = static_cast<T>(settings_.cx);
    p.cy = static_cast<T>(settings_.cy);
    p.crunch = settings_.crunch;
    p.out = out[0];
    return p;
  }

 private:
  [[nodiscard]] std::string format_offset() const { return format_real(settings_.offset); }
  [[nodiscard]] static std::string format_real(double value) {
    std::string text = std::to_string(value);
    text.erase(text.find_last_not_of('0') + 1);
    if (!text.empty() && text.back() == '.') text.pop_back();
    return text;
  }
  julia_settings settings_;
};

//! "islands, siegel, ... or neck"
std::string view_names() {
  const auto scenes = kernels::julia_scenes();
  std::string text;
  for (std::size_t i = 0; i < scenes.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == scenes.size() ? " or " : ", ") + std::string(scenes[i].name);
  }
  return text;
}

template <class T>
std::vector<std::uint32_t> task_lengths(const julia_settings& s) {
  const auto view =
      kernels::make_julia_view<T>(s.width, s.height, s.offset, *kernels::find_julia_scene(s.view));
  std::vector<std::uint32_t> out(static_cast<std::size_t>(s.width) *
                                 static_cast<std::size_t>(s.height));
  for (int py = 0; py < s.height; ++py) {
    for (int px = 0; px < s.width; ++px) {
      out[static_cast<std::size_t>(py) * static_cast<std::size_t>(s.width) +
          static_cast<std::size_t>(px)] =
          kernels::julia_escape_time<T>(view, static_cast<T>(s.cx), static_cast<T>(s.cy), s.crunch,
                                        px, py);
    }
  }
  return out;
}

std::string view_help() {
  std::string text;
  for (const auto& scene : kernels::julia_scenes()) {
    text += (text.empty() ? "" : "; ") + std::string(scene.name) + ": " + scene.help;
  }
  return text;
}

}  // namespace

std::vector<parameter> julia_parameters() {
  return {{"width", "2048", "image width in pixels"},
          {"height", "2048", "image height in pixels"},
          {"precision", "float", "float or double"},
          {"crunch", "4096", "maximum iterations per pixel"},
          {"offset", "0",
           "0 whole set (strongly divergent), 1 half, 2 a window of side 0.1 around the view's "
           "target (islands, siegel: inside an interior component, constant work: every pixel "
           "runs the crunch)"},
          {"view", "islands", view_help()},
          {"c", "", "the Julia parameter RE,IM, e.g. -0.8,0.156 (empty: the view's own c)"}};
}

julia_settings parse_julia_settings(const options_map& options) {
  const auto known = julia_parameters();
  reject_unknown("julia", options, known);
  julia_settings s;
  s.width = static_cast<int>(integer_option(options, known, "width", 1, 1 << 16));
  s.height = static_cast<int>(integer_option(options, known, "height", 1, 1 << 16));
  if (static_cast<std::uint64_t>(s.width) * static_cast<std::uint64_t>(s.height) > 0xffffffffull) {
    throw std::invalid_argument("width x height = " + std::to_string(s.width) + " x " +
                                std::to_string(s.height) + ": at most 2^32 - 1 pixels");
  }
  const std::string precision = option_or_default(options, known, "precision");
  if (precision != "float" && precision != "double") {
    throw std::invalid_argument("precision = " + precision + ": expected float or double");
  }
  s.double_precision = precision == "double";
  s.crunch = static_cast<std::uint32_t>(integer_option(options, known, "crunch", 1, 1 << 30));
  s.offset = real_option(options, known, "offset", 0.0, 2.0);
  s.view = option_or_default(options, known, "view");
  const kernels::julia_scene* scene = kernels::find_julia_scene(s.view);
  if (scene == nullptr)
    throw std::invalid_argument("view = " + s.view + ": expected " + view_names());
  s.cx = scene->cx;
  s.cy = scene->cy;
  // |c| > 2 escapes on the first iteration everywhere: a bound that leaves every useful c.
  if (const auto c = real_pair_option(options, known, "c", -2.0, 2.0)) {
    s.cx = (*c)[0];
    s.cy = (*c)[1];
    s.custom_c = true;
  }
  return s;
}

std::unique_ptr<julia_workload_base> make_julia_workload(const julia_settings& settings) {
  if (settings.double_precision) return std::make_unique<julia_workload<double>>(settings);
  return std::make_unique<julia_workload<float>>(settings);
}

std::vector<std::uint32_t> julia_task_lengths(const julia_settings& settings) {
  return settings.double_precision ? task_lengths<double>(settings) : task_lengths<float>(settings);
}

}  // namespace microsched::workloads
