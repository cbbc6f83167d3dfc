// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file range.hpp
//! Sweep axes from the command line: `name=values`, where values is a comma list of items and
//! each item is a literal ("hybrid", "any"), a number range or a prefixed number range:
//!
//!   chunk=1:4096:x2          1, 2, 4, ..., 4096        (lo:hi:xF multiplies by F)
//!   blocks-per-sm=1:16       1, 2, ..., 16              (lo:hi adds 1; lo:hi:+S or lo:hi:S adds S)
//!   fetch=any,all,ballot:1..32   any, all, ballot:1, ..., ballot:32   (prefix:lo..hi[:step])
//!   kill=0.1:0.9:+0.2        0.1, 0.3, 0.5, 0.7, 0.9    (decimal ranges for workload options)
//!
//! Schedule axes (strategy, fetch, chunk, deferral, blocks-per-sm, budget, period) are checked here
//! and their values written in one spelling; every other name is a workload option, passed
//! through.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched::sweep {

//! More values than this on one axis is almost surely a typo (1:1000000).
inline constexpr std::size_t max_axis_values = 10000;

struct axis {
  std::string name;                 //!< canonical name ("blocks-per-sm", "crunch")
  std::vector<std::string> values;  //!< expanded, duplicates removed, in the order given
};

//! Expands a value list. Throws std::invalid_argument naming the offending item.
[[nodiscard]] std::vector<std::string> expand_values(std::string_view spec);

//! The schedule axes in the order they are swept (outermost first).
[[nodiscard]] const std::vector<std::string>& schedule_axis_names();

//! "blocks_per_sm", "blocks", "blocks-per-sm" -> "blocks-per-sm"; other names unchanged.
[[nodiscard]] std::string canonical_axis_name(std::string_view name);
[[nodiscard]] bool is_schedule_axis(std::string_view canonical_name);

//! Parses "name=values". Schedule values are validated (chunk 0, deferral -1, ballot:40 and
//! unknown strategies are refused) and normalised ("auto" and "0" for blocks-per-sm -> "auto").
//! Throws std::invalid_argument quoting the argument and naming the bad value.
[[nodiscard]] axis parse_axis(std::string_view text);

//! Sets one schedule field from a normalised axis value.
void apply_schedule_value(schedule_arguments& args, std::string_view name,
                          const std::string& value);

//! The value of a schedule field as an axis would spell it.
[[nodiscard]] std::string schedule_value(const schedule_arguments& args, std::string_view name);

}  // namespace microsched::sweep
