// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file progress.hpp
//! Progress bar with an estimate of the time left, on stderr. On a terminal it redraws one line;
//! elsewhere (CI logs, files) it prints a line every few seconds.

#include <chrono>
#include <cstdio>
#include <string>

#include "sweep/engine.hpp"

namespace microsched::sweep {

//! "0:42" or "1:02:03"; "--:--" for a negative or unknown duration.
[[nodiscard]] std::string format_duration(double seconds);

//! "[##########..........]  50/100  50%  elapsed 1:02  left ~1:02  <label>". The estimate uses
//! only points this invocation runs (points found in the journal cost no time).
[[nodiscard]] std::string progress_line(const progress_event& event, double elapsed_s,
                                        int bar_width = 24);

class progress_bar {
 public:
  progress_bar(std::FILE* out, bool interactive);
  void update(const progress_event& event);
  //! Ends the line on a terminal.
  void finish();

 private:
  std::FILE* out_;
  bool interactive_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_print_{};
  std::size_t last_done_ = static_cast<std::size_t>(-1);
  bool drawn_ = false;
};

}  // namespace microsched::sweep
