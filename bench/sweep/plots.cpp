#include "sweep/plots.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "sweep/range.hpp"

extern char** environ;

#ifndef MICROSCHED_PLOT_SCRIPT
#error "MICROSCHED_PLOT_SCRIPT must name bench/sweep/plot_sweep.py (set in CMakeLists.txt)"
#endif
#ifndef MICROSCHED_PLOT_PYTHON
#define MICROSCHED_PLOT_PYTHON "python3"
#endif

namespace microsched::sweep {

void validate(const heatmap_axes& axes) {
  for (const auto* name : {&axes.x, &axes.y}) {
    if (!is_schedule_axis(*name) || *name == "strategy") {
      throw std::invalid_argument("heat map axis '" + *name +
                                  "': expected chunk, deferral, fetch or blocks-per-sm");
    }
  }
  if (axes.x == axes.y) throw std::invalid_argument("heat map axes are both '" + axes.x + "'");
}

std::vector<std::string> plot_command(const std::string& folder, const heatmap_axes& axes) {
  const char* python = std::getenv("MICROSCHED_PYTHON");
  return {python != nullptr && *python != '\0' ? python : MICROSCHED_PLOT_PYTHON,
          MICROSCHED_PLOT_SCRIPT,
          folder,
          "--heatmap-x",
          axes.x,
          "--heatmap-y",
          axes.y};
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
