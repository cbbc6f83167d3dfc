// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file calibration_replay.hpp
//! The automatic schedule's host logic (calibration.hpp) replayed on the per-call times that
//! bench_application --csv writes (every candidate timed on every call): what the default would
//! have taken under other settings, without a GPU.

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "microsched/schedule/calibration.hpp"
#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched::replay {

//! Per-call milliseconds: vanilla's, and each candidate's (candidate[c][call]).
struct call_times {
  std::vector<double> vanilla;
  std::vector<std::vector<double>> candidate;
  [[nodiscard]] std::size_t calls() const { return vanilla.size(); }
};

//! Reads bench_application's CSV: a header `call,vanilla,default,"<schedule>",...` and one row
//! per call. Each of `candidates` must have its column (named by to_string); other columns are
//! ignored. Throws std::invalid_argument naming the line or column for a malformed file.
[[nodiscard]] call_times read_application_csv(std::istream& in,
                                              const std::vector<schedule_arguments>& candidates);

struct replay_summary {
  std::size_t first_call = 0;  //!< the calls replayed: [first_call, calls)
  std::size_t calls = 0;
  double default_ms = 0;  //!< what the replayed default took in total
  double vanilla_ms = 0;
  double direct_ms = 0;  //!< candidate 0 on every call
  double oracle_ms = 0;  //!< the fastest of vanilla and every candidate on each call
  //! Each call on the run fastest at the call before (the first on vanilla): the most a rule
  //! that learns from the previous call reaches, with its timing free.
  double previous_best_ms = 0;
  int below_098 = 0;   //!< calls where the default ran below 0.98x vanilla
  int below_08 = 0;    //!< ... below 0.8x
  std::string report;  //!< calibration::report() after the last call
};

//! Replays calls [first_call, calls): each takes the candidate calibration::next() names, its
//! time is recorded where calibration::next_run_timed() says so. The first call of a real run
//! is cut into slices (automatic_schedule.hpp), which the CSV does not hold: start at call 1.
//! Throws std::invalid_argument for first_call past the calls or a time that is not positive.
[[nodiscard]] replay_summary replay(const call_times& times,
                                    const std::vector<schedule_arguments>& candidates,
                                    const calibration_settings& settings,
                                    std::size_t first_call = 1);

//! "default 21.220 ms: 1.095x vanilla, 1.000x direct, 80.2% of the oracle's speed (the previous
//! call's best: 91.0%); 4 of 119 calls below 0.98x vanilla, 1 below 0.8x"
[[nodiscard]] std::string describe(const replay_summary& s);

}  // namespace microsched::replay
