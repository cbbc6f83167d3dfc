// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file plots.hpp
//! The sweep's pictures are drawn by tools/sweep/plot_sweep.py (matplotlib) from sweep.json: a
//! heat map of speedup against vanilla over two schedule axes, one panel per strategy, with a
//! colour bar, and a line plot of speedup against chunk size with persistent threads and the
//! floor as reference lines. This header holds what the sweep program needs to run it.

#include <string>
#include <vector>

#include "workload.hpp"

namespace microsched::sweep {

struct heatmap_axes {
  std::string x = "chunk";     //!< any schedule axis but strategy, or a tunable of the workload
  std::string y = "deferral";  //!< the same, other than x
  std::string line = "chunk";  //!< the line plot's x axis: chunk, or a tunable where no schedule
};

//! Throws std::invalid_argument when an axis is not a schedule axis (or is strategy), or x == y.
void validate(const heatmap_axes& axes);
//! The same for a workload with these tunables, which may be axes too; where the workload takes
//! no schedule (`takes_schedule` false) only they may, and y may be empty (a one-row heat map).
void validate(const heatmap_axes& axes, const std::vector<std::string>& tunables,
              bool takes_schedule);

//! The axes where the user gave none: chunk x deferral where the schedule applies; otherwise
//! the first two tunables swept (then the first ones listed; y empty, one row, where there is
//! only one), the line plot over the first. Throws std::invalid_argument without tunables.
[[nodiscard]] heatmap_axes default_axes(const std::vector<std::string>& swept_tunables,
                                        const std::vector<std::string>& tunables,
                                        bool takes_schedule);

//! The command that draws the plots of the sweep in `folder`: the Python interpreter (the
//! environment variable MICROSCHED_PYTHON, else the one with matplotlib found when the program
//! was configured, else python3), plot_sweep.py, the folder and the axes (heat map x and y,
//! then the line plot's x).
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
