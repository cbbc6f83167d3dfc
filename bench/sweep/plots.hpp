#pragma once
//! @file plots.hpp
//! The sweep's pictures: a heat map of speedup against vanilla over two schedule axes with one
//! panel per strategy, and a line plot of speedup against chunk size with the floor and
//! persistent threads drawn as references. Both say what they show in words on the image.

#include <string>
#include <vector>

#include "sweep/engine.hpp"
#include "sweep/image.hpp"

namespace microsched::sweep {

struct heatmap_axes {
  std::string x = "chunk";     //!< any schedule axis but strategy
  std::string y = "deferral";  //!< any schedule axis but strategy and x
};

//! Throws std::invalid_argument when an axis is not a schedule axis, is strategy, or x == y.
void validate(const heatmap_axes& axes);

//! Cells hold the best speedup over the axes not shown; "skip" where no point could run there.
[[nodiscard]] image render_heatmap(const sweep_results& results, const scenario_results& scenario,
                                   const heatmap_axes& axes = {});

//! One line per strategy: best speedup at each chunk size (log scale) over the other axes.
[[nodiscard]] image render_speedup_plot(const sweep_results& results,
                                        const scenario_results& scenario);

//! Tick values at 1, 2, 2.5 or 5 times a power of 10, about `target` steps apart over [lo, hi],
//! from the last at or below lo to the first at or above hi.
[[nodiscard]] std::vector<double> nice_ticks(double lo, double hi, int target = 6);

//! A file-name-safe form of a scenario key: "julia crunch=4096 offset=0" -> "julia_crunch-4096_offset-0".
[[nodiscard]] std::string file_slug(const std::string& text);

}  // namespace microsched::sweep
