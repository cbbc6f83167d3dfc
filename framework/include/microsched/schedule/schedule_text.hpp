// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file schedule_text.hpp
//! The one persisted form of a schedule: every field of schedule_arguments as `key=value`, in one
//! fixed order, from one field list. Every file that holds a schedule holds this text: the
//! calibration cache, the tuning files and the sweep's journal and results, so a field added here
//! is stored everywhere.
//!
//! @code
//! strategy=budgeted fetch=any chunk=32 deferral=0 blocks_per_sm=0 budget=64 period=0
//! switch_every=1 default_then=0 fifo=false
//! @endcode
//! (one line). Readers are strict: every key once, in any order, no other key; numbers are
//! whole, unsigned and in range; then validate() runs.

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "microsched/schedule/schedule_arguments.hpp"

namespace microsched {

//! How a field's value is spelled: a word (strategy, fetch), a whole number of 0 or more, or
//! true/false. The JSON form maps them to a string, a number and a boolean.
enum class schedule_field_kind { word, number, flag };

struct schedule_field {
  std::string_view name;  //!< the key, as in schedule_arguments ("switch_every", not switching.)
  schedule_field_kind kind;
};

//! Every field of schedule_arguments, in the order the text form writes them.
[[nodiscard]] std::span<const schedule_field> schedule_fields();

//! (key, value) for every field, in schedule_fields() order; values as the text form spells them.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> schedule_values(
    const schedule_arguments& args);

//! Builds a schedule from (key, value) pairs: every key of schedule_fields() exactly once, in any
//! order. Throws std::invalid_argument naming the key and the value for an unknown, repeated or
//! missing key, a negative number, a fraction, an exponent, a number out of the field's range, or
//! junk after a number; then validate()s the result.
[[nodiscard]] schedule_arguments schedule_from_values(
    const std::vector<std::pair<std::string, std::string>>& values);

//! "strategy=hybrid fetch=any chunk=32 ... fifo=false": every field, one space apart, one line.
[[nodiscard]] std::string schedule_text(const schedule_arguments& args);

//! Reads schedule_text() back (keys in any order, separated by spaces or tabs). Throws
//! std::invalid_argument as schedule_from_values() does, and for a word that is not key=value.
[[nodiscard]] schedule_arguments parse_schedule_text(std::string_view text);

}  // namespace microsched
