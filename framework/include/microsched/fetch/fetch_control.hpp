// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file fetch_control.hpp
//! Task-fetch control (frey2012 §4.3): when a warp leaves its compute loop to refill idle lanes.
//! Any, All and Ballot(n) count idle lanes with one ballot. The paper's Atomic(n), a
//! shared-memory atomic per lane, takes the same decision at a higher cost and is not offered.

#include <string>

#include "microsched/config.hpp"
#include "microsched/fetch/should_leave.hpp"

namespace microsched {

enum class fetch_kind { any, all, ballot };

struct fetch_control {
  fetch_kind kind = fetch_kind::any;
  int idle_threshold = 1;  //!< leave when at least this many lanes are idle (1..32)

  [[nodiscard]] static constexpr fetch_control any() { return {fetch_kind::any, 1}; }
  [[nodiscard]] static constexpr fetch_control all() { return {fetch_kind::all, warp_size}; }
  [[nodiscard]] static constexpr fetch_control ballot(int n) { return {fetch_kind::ballot, n}; }

  friend constexpr bool operator==(const fetch_control&, const fetch_control&) = default;
};

//! Throws std::invalid_argument unless the idle threshold is in 1..32 and matches the kind.
void validate(const fetch_control& fetch);

//! "any", "all", "ballot:8"; throws std::invalid_argument naming the text otherwise ("atomic:N"
//! with the reason it is not offered).
[[nodiscard]] fetch_control parse_fetch_control(const std::string& text);
[[nodiscard]] std::string to_string(const fetch_control& fetch);

}  // namespace microsched
