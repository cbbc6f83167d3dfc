// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "sweep/progress.hpp"

#include <cmath>

namespace microsched::sweep {

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "--:--";
  const auto total = static_cast<long long>(std::lround(seconds));
  char buf[32];
  if (total >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", total / 60, total % 60);
  }
  return buf;
}

std::string progress_line(const progress_event& e, double elapsed_s, int bar_width) {
  const double fraction = e.total == 0 ? 1.0 : static_cast<double>(e.done) / e.total;
  const auto filled = static_cast<std::size_t>(fraction * bar_width);
  std::string bar(1, '[');
  bar.append(filled, '#');
  bar.append(static_cast<std::size_t>(bar_width) - filled, '.');
  bar += ']';
  const std::size_t ran = e.done - e.resumed;
  const double left = ran == 0 ? -1 : elapsed_s / ran * static_cast<double>(e.total - e.done);
  char buf[128];
  std::snprintf(buf, sizeof buf, " %zu/%zu %3d%%  elapsed %s  left ~%s", e.done, e.total,
                static_cast<int>(fraction * 100), format_duration(elapsed_s).c_str(),
                format_duration(left).c_str());
  std::string line = bar + buf;
  if (!e.label.empty()) line += "  " + e.label;
  return line;
}

progress_bar::progress_bar(std::FILE* out, bool interactive)
    : out_(out), interactive_(interactive) {}

void progress_bar::update(const progress_event& event) {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string line = progress_line(event, elapsed);
  if (interactive_) {
    constexpr std::size_t max_width = 150;
    if (line.size() > max_width) line = line.substr(0, max_width - 3) + "...";
    std::fprintf(out_, "\r\033[K%s", line.c_str());
    std::fflush(out_);
    drawn_ = true;
    return;
  }
  // Logs: a line when a point finishes, at most every 5 s, and always the last one.
  const bool finished = event.done == event.total && event.done != last_done_;
  if (finished || (event.done != last_done_ && now - last_print_ >= std::chrono::seconds(5))) {
    std::fprintf(out_, "%s\n", line.c_str());
    std::fflush(out_);
    last_print_ = now;
    last_done_ = event.done;
  }
}

void progress_bar::finish() {
  if (interactive_ && drawn_) std::fprintf(out_, "\n");
  drawn_ = false;
}

}  // namespace microsched::sweep
