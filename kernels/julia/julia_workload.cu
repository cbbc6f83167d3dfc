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
           (settings_.view == "islands" ? "" : " view=" + settings_.view);
  }
  [[nodiscard]] const julia_settings& settings() const override { return settings_; }
  [[nodiscard]] std::vector<std::uint32_t> render_scheduled(const schedule_arguments& args) override {
    this->run_scheduled_once(args);
    return this->last_output(0);
  }

 protected:
  [[nodiscard]] kernels::julia_program<T> make_program(
      const typename base::outputs& out) const override {
    kernels::julia_program<T> p;
    const kernels::julia_scene& scene =
        settings_.view == "siegel" ? kernels::julia_siegel : kernels::julia_islands;
    p.view = kernels::make_julia_view<T>(settings_.width, settings_.height, settings_.offset, scene);
    p.cx = static_cast<T>(scene.cx);
    p.cy = static_cast<T>(scene.cy);
    p.crunch = settings_.crunch;
    p.out = out[0];
    return p;
  }

 private:
  [[nodiscard]] std::string format_offset() const {
    std::string text = std::to_string(settings_.offset);
    text.erase(text.find_last_not_of('0') + 1);
    if (!text.empty() && text.back() == '.') text.pop_back();
    return text;
  }
  julia_settings settings_;
};

}  // namespace

std::vector<parameter> julia_parameters() {
  return {{"width", "2048", "image width in pixels"},
          {"height", "2048", "image height in pixels"},
          {"precision", "float", "float or double"},
          {"crunch", "4096", "maximum iterations per pixel"},
          {"offset", "0",
           "0 whole set (strongly divergent), 1 half, 2 inside an interior component (constant "
           "work: every pixel runs the crunch)"},
          {"view", "islands",
           "islands: c = -0.54+0.60i, interior islands scattered over the set (default); siegel: "
           "c = -0.391-0.587i, one Siegel disk (less divergent)"}};
}

julia_settings parse_julia_settings(const options_map& options) {
  const auto known = julia_parameters();
  reject_unknown("julia", options, known);
  julia_settings s;
  s.width = static_cast<int>(integer_option(options, known, "width", 1, 1 << 16));
  s.height = static_cast<int>(integer_option(options, known, "height", 1, 1 << 16));
  const std::string precision = option_or_default(options, known, "precision");
  if (precision != "float" && precision != "double") {
    throw std::invalid_argument("precision = " + precision + ": expected float or double");
  }
  s.double_precision = precision == "double";
  s.crunch = static_cast<std::uint32_t>(integer_option(options, known, "crunch", 1, 1 << 30));
  s.offset = real_option(options, known, "offset", 0.0, 2.0);
  s.view = option_or_default(options, known, "view");
  if (s.view != "islands" && s.view != "siegel") {
    throw std::invalid_argument("view = " + s.view + ": expected islands or siegel");
  }
  return s;
}

std::unique_ptr<julia_workload_base> make_julia_workload(const julia_settings& settings) {
  if (settings.double_precision) return std::make_unique<julia_workload<double>>(settings);
  return std::make_unique<julia_workload<float>>(settings);
}

}  // namespace microsched::workloads
