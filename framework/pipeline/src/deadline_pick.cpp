#include "microsched/pipeline/deadline_pick.hpp"

#include <algorithm>

#include "microsched/pipeline/detail/invalid.hpp"

namespace microsched::pipeline {

deadline_picker::deadline_picker(std::size_t history, double quantile)
    : history_(history), quantile_(quantile) {
  if (history < 1) detail::invalid("history", history, "must be >= 1");
  if (!(quantile >= 0 && quantile <= 1)) detail::invalid("quantile", quantile, "must be in [0, 1]");
  recent_.reserve(history);
}

void deadline_picker::remap_time(double ms) {
  if (!(ms > 0)) return;
  if (recent_.size() < history_) {
    recent_.push_back(ms);
  } else {
    recent_[next_] = ms;
    next_ = (next_ + 1) % history_;
  }
}

double deadline_picker::estimate_ms() const {
  if (recent_.empty()) return -1;
  std::vector<double> sorted = recent_;
  std::sort(sorted.begin(), sorted.end());
  const auto k = static_cast<std::size_t>(quantile_ * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(k, sorted.size() - 1)];
}

}  // namespace microsched::pipeline
