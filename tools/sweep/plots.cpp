// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "sweep/plots.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "sweep/range.hpp"

extern char** environ;

#ifndef MICROSCHED_PLOT_SCRIPT
#error "MICROSCHED_PLOT_SCRIPT must name tools/sweep/plot_sweep.py (set in CMakeLists.txt)"
#endif
#ifndef MICROSCHED_PLOT_PYTHON
#define MICROSCHED_PLOT_PYTHON "python3"
#endif

namespace microsched::sweep {

void validate(const heatmap_axes& axes) {
  validate(axes, {}, true);
}

void validate(const heatmap_axes& axes, const std::vector<std::string>& tunables,
              bool takes_schedule) {
  std::vector<std::string> allowed;
  if (takes_schedule) allowed = {"chunk", "deferral", "fetch", "blocks-per-sm", "budget", "period"};
  allowed.insert(allowed.end(), tunables.begin(), tunables.end());
  std::string names;
  for (const auto& n : allowed) names += (names.empty() ? "" : ", ") + n;
  for (const auto* name : {&axes.x, &axes.y, &axes.line}) {
    if (name == &axes.y && name->empty() && !takes_schedule) continue;  // a one-row heat map
    if (std::find(allowed.begin(), allowed.end(), *name) == allowed.end()) {
      throw std::invalid_argument((name == &axes.line ? "line plot axis '" : "heat map axis '") +
                                  *name + "': expected " + names);
    }
  }
  if (axes.x == axes.y) throw std::invalid_argument("heat map axes are both '" + axes.x + "'");
}

heatmap_axes default_axes(const std::vector<std::string>& swept_tunables,
                          const std::vector<std::string>& tunables, bool takes_schedule) {
  if (takes_schedule) return {};
  std::vector<std::string> order = swept_tunables;
  for (const auto& t : tunables) {
    if (std::find(order.begin(), order.end(), t) == order.end()) order.push_back(t);
  }
  if (order.empty()) throw std::invalid_argument("nothing to plot: the workload has no tunables");
  return {order[0], order.size() > 1 ? order[1] : "", order[0]};
}

std::vector<std::string> plot_command(const std::string& folder, const heatmap_axes& axes) {
  const char* python = std::getenv("MICROSCHED_PYTHON");
  return {python != nullptr && *python != '\0' ? python : MICROSCHED_PLOT_PYTHON,
          MICROSCHED_PLOT_SCRIPT,
          folder,
          "--heatmap-x",
          axes.x,
          "--heatmap-y",
          axes.y,
          "--line-x",
          axes.line};
}

int run_command(const std::vector<std::string>& command) {
  if (command.empty()) throw std::invalid_argument("run_command: empty command");
  std::vector<char*> argv;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return 127;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
}

std::string shell_line(const std::vector<std::string>& command) {
  std::string line;
  for (const auto& a : command) {
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
                                         "OPQRSTUVWXYZ0123456789_-./=:+,") == std::string::npos;
    std::string quoted = "'";
    for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += (line.empty() ? "" : " ") + (plain ? a : quoted + "'");
  }
  return line;
}

}  // namespace microsched::sweep
