#include "sweep/plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>

#include "sweep/report.hpp"

namespace microsched::sweep {

namespace {

constexpr color highlight{220, 20, 60};
constexpr color floor_color{178, 34, 34};
constexpr color strategy_colors[3] = {{230, 120, 20}, {40, 100, 200}, {30, 150, 70}};  // l, g, h
constexpr int margin = 20;

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string tick_label(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", std::abs(v) < 1e-12 ? 0.0 : v);
  return buf;
}

//! Numeric sort key of an axis value: "auto" (blocks per SM) first; non-numbers keep order.
std::optional<double> numeric(const std::string& value) {
  if (value == "auto") return -1.0;
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (end == value.c_str() || *end != '\0') return std::nullopt;
  return v;
}

std::vector<std::string> axis_values(const scenario_results& sc, const std::string& axis) {
  std::vector<std::string> values;
  for (const auto& p : sc.points) {
    auto v = schedule_value(p.schedule, axis);
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(std::move(v));
  }
  const bool all_numeric =
      std::all_of(values.begin(), values.end(), [](const auto& v) { return numeric(v).has_value(); });
  if (all_numeric) {
    std::stable_sort(values.begin(), values.end(),
                     [](const auto& a, const auto& b) { return *numeric(a) < *numeric(b); });
  }
  return values;
}

std::vector<pool_strategy> strategies_of(const scenario_results& sc) {
  std::vector<pool_strategy> out;
  for (auto s : {pool_strategy::local, pool_strategy::global, pool_strategy::hybrid}) {
    if (std::any_of(sc.points.begin(), sc.points.end(),
                    [&](const point_record& p) { return p.schedule.strategy == s; })) {
      out.push_back(s);
    }
  }
  return out;
}

std::string references_line(const baseline_record& b) {
  return "vanilla " + format_ms(b.vanilla.median_ms) + ", persistent threads " +
         format_ms(b.persistent.median_ms) + " (" +
         fixed(b.vanilla.median_ms / b.persistent.median_ms, 2) + "x), uniform-work floor " +
         format_ms(b.floor.median_ms) + " (" + fixed(b.vanilla.median_ms / b.floor.median_ms, 2) +
         "x: the limit)";
}

std::string best_line(const scenario_results& sc) {
  const auto best = best_point(sc);
  if (!best) return "no point ran";
  const auto& p = sc.points[*best];
  const auto r = ratios(p, sc.baseline);
  return "best " + fixed(r.speedup_vs_vanilla, 2) + "x: " + schedule_key(p.schedule) + " (" +
         format_ms(p.time.median_ms) + ", " + fixed(r.over_floor, 2) + "x the floor)";
}

std::string other_axes(std::initializer_list<std::string> shown) {
  std::string out;
  for (const auto& name : schedule_axis_names()) {
    if (std::find(shown.begin(), shown.end(), name) != shown.end()) continue;
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

}  // namespace

void validate(const heatmap_axes& axes) {
  for (const auto* name : {&axes.x, &axes.y}) {
    if (!is_schedule_axis(*name) || *name == "strategy") {
      throw std::invalid_argument("heat map axis '" + *name +
                                  "': expected chunk, deferral, fetch or blocks-per-sm");
    }
  }
  if (axes.x == axes.y) throw std::invalid_argument("heat map axes are both '" + axes.x + "'");
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(target, 1);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power * 10;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * power >= raw) {
      step = m * power;
      break;
    }
  }
  std::vector<double> ticks;
  // from the last tick at or below lo to the first at or above hi
  const auto first = static_cast<long long>(std::floor(lo / step + 1e-9));
  const auto last = static_cast<long long>(std::ceil(hi / step - 1e-9));
  for (long long k = first; k <= last; ++k) ticks.push_back(static_cast<double>(k) * step);
  return ticks;
}

std::string file_slug(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-') {
      out += c;
    } else if (c == '=') {
      out += '-';
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? "scenario" : out;
}

image render_heatmap(const sweep_results& results, const scenario_results& sc,
                     const heatmap_axes& axes) {
  validate(axes);
  const auto xs = axis_values(sc, axes.x);
  const auto ys = axis_values(sc, axes.y);
  const auto strategies = strategies_of(sc);
  const std::size_t nx = std::max<std::size_t>(xs.size(), 1), ny = std::max<std::size_t>(ys.size(), 1);
  const std::size_t np = std::max<std::size_t>(strategies.size(), 1);

  // (panel, y, x) -> best speedup (NaN: nothing ran) and whether a point was skipped there
  std::vector<double> value(np * ny * nx, NAN);
  std::vector<char> skipped(np * ny * nx, 0);
  double lo = INFINITY, hi = -INFINITY;
  std::optional<std::size_t> best_cell;
  const auto best = best_point(sc);
  for (std::size_t i = 0; i < sc.points.size(); ++i) {
    const auto& p = sc.points[i];
    const auto pi = std::find(strategies.begin(), strategies.end(), p.schedule.strategy) - strategies.begin();
    const auto xi = std::find(xs.begin(), xs.end(), schedule_value(p.schedule, axes.x)) - xs.begin();
    const auto yi = std::find(ys.begin(), ys.end(), schedule_value(p.schedule, axes.y)) - ys.begin();
    const std::size_t cell = (static_cast<std::size_t>(pi) * ny + yi) * nx + xi;
    if (p.status != point_status::ok) {
      skipped[cell] = 1;
      continue;
    }
    const double s = ratios(p, sc.baseline).speedup_vs_vanilla;
    if (std::isnan(value[cell]) || s > value[cell]) value[cell] = s;
    lo = std::min(lo, s);
    hi = std::max(hi, s);
    if (best && *best == i) best_cell = cell;
  }
  if (!(lo <= hi)) lo = 0, hi = 1;
  if (hi - lo < 1e-6) lo -= 0.05, hi += 0.05;

  int x_label_w = 0, y_label_w = 0;
  for (const auto& v : xs) x_label_w = std::max(x_label_w, text_width(v));
  for (const auto& v : ys) y_label_w = std::max(y_label_w, text_width(v));
  const int cell_w = std::max(40, x_label_w + 8), cell_h = 24;
  const int panel_w = static_cast<int>(nx) * cell_w, panel_h = static_cast<int>(ny) * cell_h;
  const int gap = y_label_w + 36;
  const int left = margin + 16 + y_label_w + 8;
  const int top = 92;
  const int bar_x = left + static_cast<int>(np) * panel_w + static_cast<int>(np - 1) * gap + 40;
  const int bar_h = std::max(panel_h, 160);
  const std::string title = "Speedup vs vanilla: " + sc.baseline.scenario;
  const std::string line1 = "GPU " + results.header.gpu + "; " + references_line(sc.baseline);
  const std::string line2 = best_line(sc) + "; cells: best over " + other_axes({"strategy", axes.x, axes.y}) +
                            ", framed: the best";
  const int width = std::max({bar_x + 20 + 50 + 24 + margin, margin + text_width(title, 2) + margin,
                              margin + text_width(line1) + margin, margin + text_width(line2) + margin});
  const int height = top + std::max(panel_h + 44, bar_h + 8) + margin;
  image img(width, height);

  img.text(margin, margin - 4, title, black, 2);
  img.text(margin, margin + 22, line1, black);
  img.text(margin, margin + 36, line2, black);

  for (std::size_t pi = 0; pi < np; ++pi) {
    const int px = left + static_cast<int>(pi) * (panel_w + gap);
    const std::string name = strategies.empty() ? "-" : to_string(strategies[pi]);
    img.text_centered(px + panel_w / 2, top - 16, "strategy " + name, black);
    for (std::size_t yi = 0; yi < ny; ++yi) {
      // first y value at the top
      const int cy = top + static_cast<int>(yi) * cell_h;
      if (yi < ys.size()) img.text_right(px - 6, cy + (cell_h - glyph_height) / 2, ys[yi], black);
      for (std::size_t xi = 0; xi < nx; ++xi) {
        const int cx = px + static_cast<int>(xi) * cell_w;
        const std::size_t cell = (pi * ny + yi) * nx + xi;
        const double v = value[cell];
        const int ty = cy + (cell_h - glyph_height) / 2;
        if (!std::isnan(v)) {
          const color c = colormap((v - lo) / (hi - lo));
          img.fill_rect(cx, cy, cell_w, cell_h, c);
          img.text_centered(cx + cell_w / 2, ty, fixed(v, 2), text_color_on(c));
        } else if (skipped[cell] != 0) {
          img.fill_rect(cx, cy, cell_w, cell_h, light_grey);
          img.text_centered(cx + cell_w / 2, ty, "skip", grey);
        } else {
          img.fill_rect(cx, cy, cell_w, cell_h, white);
          img.text_centered(cx + cell_w / 2, ty, "-", grey);
        }
      }
    }
    img.outline_rect(px - 1, top - 1, panel_w + 2, panel_h + 2, grey);
    for (std::size_t xi = 0; xi < xs.size(); ++xi) {
      img.text_centered(px + static_cast<int>(xi) * cell_w + cell_w / 2, top + panel_h + 6, xs[xi], black);
    }
    img.text_centered(px + panel_w / 2, top + panel_h + 22, axes.x, black);
    if (pi == 0) img.text_vertical(margin, top + panel_h / 2, axes.y, black);
  }
  if (best_cell) {
    const std::size_t pi = *best_cell / (ny * nx), yi = *best_cell / nx % ny, xi = *best_cell % nx;
    img.outline_rect(left + static_cast<int>(pi) * (panel_w + gap) + static_cast<int>(xi) * cell_w,
                     top + static_cast<int>(yi) * cell_h, cell_w, cell_h, highlight, 2);
  }

  // colour bar: hi at the top
  for (int y = 0; y < bar_h; ++y) {
    img.fill_rect(bar_x, top + y, 20, 1, colormap(1.0 - static_cast<double>(y) / (bar_h - 1)));
  }
  img.outline_rect(bar_x - 1, top - 1, 22, bar_h + 2, grey);
  for (double t : nice_ticks(lo, hi, 5)) {
    if (t < lo - 1e-9 || t > hi + 1e-9) continue;
    const int y = top + static_cast<int>(std::lround((hi - t) / (hi - lo) * (bar_h - 1)));
    img.fill_rect(bar_x + 20, y, 4, 1, black);
    img.text(bar_x + 28, y - 3, tick_label(t), black);
  }
  img.text_vertical(bar_x + 28 + 40, top + bar_h / 2, "speedup vs vanilla", black);
  return img;
}

image render_speedup_plot(const sweep_results& results, const scenario_results& sc) {
  const int width = 1000, height = 620;
  const int left = 84, right = width - 250, top = 84, bottom = height - 64;
  const auto& b = sc.baseline;
  const double floor_speedup = b.vanilla.median_ms / b.floor.median_ms;
  const double persistent_speedup = b.vanilla.median_ms / b.persistent.median_ms;

  // strategy -> chunk -> best speedup over the other axes
  std::map<pool_strategy, std::map<std::uint64_t, double>> series;
  double ymax = std::max({1.0, floor_speedup, persistent_speedup});
  std::uint64_t cmin = UINT64_MAX, cmax = 0;
  for (const auto& p : sc.points) {
    if (p.status != point_status::ok) continue;
    const double s = ratios(p, b).speedup_vs_vanilla;
    auto& best = series[p.schedule.strategy][p.schedule.chunk];
    best = std::max(best, s);
    ymax = std::max(ymax, s);
    cmin = std::min(cmin, p.schedule.chunk);
    cmax = std::max(cmax, p.schedule.chunk);
  }
  if (cmax == 0) cmin = cmax = 1;
  double xlo = std::log2(static_cast<double>(cmin)), xhi = std::log2(static_cast<double>(cmax));
  if (xhi - xlo < 1e-9) xlo -= 1, xhi += 1;
  const double xpad = (xhi - xlo) * 0.04;
  xlo -= xpad;
  xhi += xpad;
  const auto yticks = nice_ticks(0, ymax * 1.04, 8);
  const double yhi = yticks.back();
  const auto px = [&](double chunk) {
    return left + static_cast<int>(std::lround((std::log2(chunk) - xlo) / (xhi - xlo) * (right - left)));
  };
  const auto py = [&](double v) {
    return bottom - static_cast<int>(std::lround(v / yhi * (bottom - top)));
  };

  image img(width, height);
  img.text(margin, margin - 4, "Speedup vs chunk size: " + b.scenario, black, 2);
  img.text(margin, margin + 22, "GPU " + results.header.gpu + "; " + references_line(b), black);
  img.text(margin, margin + 36, best_line(sc) + "; each point: best over deferral, fetch, blocks-per-sm", black);

  for (double t : yticks) {
    const int y = py(t);
    img.fill_rect(left, y, right - left, 1, light_grey);
    img.fill_rect(left - 5, y, 5, 1, black);
    img.text_right(left - 8, y - 3, tick_label(t), black);
  }
  int last_label_end = -1000;
  for (std::uint64_t c = 1; c <= cmax && c != 0; c *= 2) {
    if (c < cmin) continue;
    const int x = px(static_cast<double>(c));
    img.fill_rect(x, bottom, 1, 5, black);
    const std::string label = std::to_string(c);
    const int w = text_width(label);
    if (x - w / 2 > last_label_end + 6) {
      img.text_centered(x, bottom + 9, label, black);
      last_label_end = x + w / 2;
    }
  }
  img.fill_rect(left, top, 1, bottom - top + 1, black);
  img.fill_rect(left, bottom, right - left + 1, 1, black);
  img.text_centered((left + right) / 2, bottom + 26, "chunk size (tasks per grab, log scale)", black);
  img.text_vertical(margin, (top + bottom) / 2, "speedup vs vanilla (higher is faster)", black);

  // references
  const int legend_x = right + 24;
  int legend_y = top;
  const auto legend = [&](color c, const std::string& label, int dash, bool marker) {
    img.line(legend_x, legend_y + 3, legend_x + 28, legend_y + 3, c, 2, dash);
    if (marker) img.fill_rect(legend_x + 11, legend_y, 7, 7, c);
    img.text(legend_x + 36, legend_y, label, black);
    legend_y += 18;
  };
  img.line(left, py(floor_speedup), right, py(floor_speedup), floor_color, 2, 6);
  img.line(left, py(persistent_speedup), right, py(persistent_speedup), grey, 2, 6);
  img.line(left, py(1.0), right, py(1.0), black, 1, 2);

  std::size_t si = 0;
  for (auto s : {pool_strategy::local, pool_strategy::global, pool_strategy::hybrid}) {
    const color c = strategy_colors[si++];
    const auto it = series.find(s);
    if (it == series.end()) continue;
    std::optional<std::pair<int, int>> prev;
    for (const auto& [chunk, v] : it->second) {
      const int x = px(static_cast<double>(chunk)), y = py(v);
      if (prev) img.line(prev->first, prev->second, x, y, c, 2);
      prev = {x, y};
    }
    for (const auto& [chunk, v] : it->second) {
      img.fill_rect(px(static_cast<double>(chunk)) - 3, py(v) - 3, 7, 7, c);
    }
    legend(c, to_string(s), 0, true);
  }
  legend_y += 8;
  legend(floor_color, "floor (" + fixed(floor_speedup, 2) + "x)", 6, false);
  legend(grey, "persistent thr. (" + fixed(persistent_speedup, 2) + "x)", 6, false);
  legend(black, "vanilla (1x)", 2, false);
  return img;
}

}  // namespace microsched::sweep
