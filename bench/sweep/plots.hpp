#pragma once
//! @file plots.hpp
//! The sweep's pictures are drawn by bench/sweep/plot_sweep.py (matplotlib) from sweep.json: a
//! heat map of speedup against vanilla over two schedule axes, one panel per strategy, with a
//! colour bar, and a line plot of speedup against chunk size with persistent threads and the
//! floor as reference lines. This header holds what the sweep program needs to run it.

#include <string>
#include <vector>

namespace microsched::sweep {

struct heatmap_axes {
  std::string x = "chunk";     //!< any schedule axis but strategy
  std::string y = "deferral";  //!< any schedule axis but strategy and x
};

//! Throws std::invalid_argument when an axis is not a schedule axis, is strategy, or x == y.
void validate(const heatmap_axes& axes);

//! The command that draws the plots of the sweep in `folder`: the Python interpreter (the
//! environment variable MICROSCHED_PYTHON, else the one with matplotlib found when the program
//! was configured, else python3), plot_sweep.py, the folder and the axes.
[[nodiscard]] std::vector<std::string> plot_command(const std::string& folder,
                                                    const heatmap_axes& axes);

//! Runs `command` (no shell) and waits for it. Returns its exit status; 127 when it cannot be
//! started (no such interpreter), 128 + N when signal N ended it.
[[nodiscard]] int run_command(const std::vector<std::string>& command);

//! `command` as one line a user can paste into a POSIX shell.
[[nodiscard]] std::string shell_line(const std::vector<std::string>& command);

//! plot_sweep.py's exit status when matplotlib is not installed.
inline constexpr int plot_no_matplotlib = 3;

}  // namespace microsched::sweep
