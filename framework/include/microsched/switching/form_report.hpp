// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file form_report.hpp
//! What automatic_switching::report() says of one size class's choice (form_calibration.hpp):
//! the choice and the fastest direct form timed, where an adopted choice came from, what choosing
//! and the checks after a drift cost, and each form's time. Host code, tested on the CPU.

#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>

#include "microsched/switching/branch_forms.hpp"
#include "microsched/switching/form_calibration.hpp"

namespace microsched::switching {

//! `name` names a form (with the program's names of its orders); `origin` is where an earlier
//! process's choice comes from (the cache file).
[[nodiscard]] inline std::string form_report(
    const form_calibration& c, const std::function<std::string(const branch_form&)>& name,
    const std::string& origin) {
  char line[160];
  std::string r = "automatic switching: ";
  const std::string earlier = c.cached_here
                                  ? std::string(" [chosen earlier in this process")
                                  : std::string(" [chosen by an earlier process: ") + origin;
  if (c.from_cache && c.chosen >= 0 && c.runs == 0) {
    return r + name(c.forms[static_cast<std::size_t>(c.chosen)]) + earlier + "]";
  }
  if (c.chosen < 0) {
    r += c.from_cache   ? std::string("checking") + earlier + "]"
         : c.round == 0 ? std::string("checking after a drift")
                        : std::string("choosing");
  } else {
    const int d = fastest_direct(c.forms, c.best_ms);
    std::snprintf(line, sizeof(line), "%s (%.3f ms); fastest direct form %s (%.3f ms)",
                  name(c.forms[static_cast<std::size_t>(c.chosen)]).c_str(),
                  c.best_ms[static_cast<std::size_t>(c.chosen)],
                  d >= 0 ? name(c.forms[static_cast<std::size_t>(d)]).c_str() : "-",
                  d >= 0 ? c.best_ms[static_cast<std::size_t>(d)] : 0.0);
    r += line;
    if (c.from_cache) r += earlier + ", checked here]";
  }
  std::snprintf(line, sizeof(line), "; %d timed runs, %.2f ms on the GPU", c.runs,
                c.calibration_ms);
  r += line;
  if (c.rechecks > 0) {
    std::snprintf(line, sizeof(line), "; %d %s after a drift", c.rechecks,
                  c.rechecks == 1 ? "check" : "checks");
    r += line;
  }
  r += "; forms:";
  for (std::size_t i = 0; i < c.forms.size(); ++i) {
    if (c.best_ms[i] >= 0) {
      std::snprintf(line, sizeof(line), " [%s %.3f]", name(c.forms[i]).c_str(), c.best_ms[i]);
    } else if (i < c.first_ms.size() && c.first_ms[i] >= 0) {  // not a finalist
      std::snprintf(line, sizeof(line), " [%s %.3f in round one]", name(c.forms[i]).c_str(),
                    c.first_ms[i]);
    } else {
      std::snprintf(line, sizeof(line), " [%s %s]", name(c.forms[i]).c_str(),
                    c.failed[i].empty() ? "-" : "cannot run");
    }
    r += line;
  }
  return r;
}

}  // namespace microsched::switching
