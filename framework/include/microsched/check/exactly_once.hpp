// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file exactly_once.hpp
//! The exactly-once check's tally, on the host: one counter per task, incremented each time the
//! task ended (counted_program.cuh, or a kernel's own counter), read back and counted here.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace microsched {

struct exactly_once_count {
  std::uint64_t tasks = 0;
  std::uint64_t missing = 0;     //!< counters at 0: tasks never ended
  std::uint64_t duplicated = 0;  //!< counters above 1: tasks ended more than once
  std::string detail;            //!< "task 7 processed 2 times; " for the first wrong counters
  [[nodiscard]] bool passed() const { return missing == 0 && duplicated == 0; }
};

//! Tallies `counts` (one per task). `detail_limit`: `detail` names wrong counters while it is
//! shorter than this many characters (0: no detail).
template <class Counter>
[[nodiscard]] exactly_once_count count_exactly_once(const std::vector<Counter>& counts,
                                                    std::size_t detail_limit = 0) {
  exactly_once_count r;
  r.tasks = counts.size();
  for (std::size_t t = 0; t < counts.size(); ++t) {
    const Counter c = counts[t];
    if (c == 1) continue;
    ++(c == 0 ? r.missing : r.duplicated);
    if (r.detail.size() < detail_limit) {
      r.detail += "task " + std::to_string(t) + " processed " + std::to_string(c) + " times; ";
    }
  }
  return r;
}

}  // namespace microsched
