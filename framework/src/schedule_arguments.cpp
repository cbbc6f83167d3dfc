// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/schedule/schedule_arguments.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "microsched/error.hpp"

namespace microsched {

namespace {
int parse_threshold(const std::string& text, std::size_t colon) {
  int n = 0;
  const char* first = text.data() + colon + 1;
  const char* last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(first, last, n);
  if (ec != std::errc{} || ptr != last || first == last) {
    throw std::invalid_argument("fetch control '" + text + "': expected a number after ':'");
  }
  return n;
}
}  // namespace

void validate(const fetch_control& fetch) {
  if (fetch.idle_threshold < 1 || fetch.idle_threshold > warp_size) {
    throw_invalid("idle threshold", fetch.idle_threshold, "must be in 1..32 (lanes of a warp)");
  }
  if (fetch.kind == fetch_kind::any && fetch.idle_threshold != 1) {
    throw_invalid("idle threshold", fetch.idle_threshold, "fetch control Any means 1");
  }
  if (fetch.kind == fetch_kind::all && fetch.idle_threshold != warp_size) {
    throw_invalid("idle threshold", fetch.idle_threshold, "fetch control All means 32");
  }
}

fetch_control parse_fetch_control(const std::string& text) {
  if (text == "any") return fetch_control::any();
  if (text == "all") return fetch_control::all();
  const auto colon = text.find(':');
  const std::string head = text.substr(0, colon);
  if (colon != std::string::npos && head == "ballot") {
    const fetch_control fc = fetch_control::ballot(parse_threshold(text, colon));
    validate(fc);
    return fc;
  }
  if (head == "atomic") {
    throw std::invalid_argument("fetch control '" + text +
                                "': not offered (the paper's shared-memory count takes the same "
                                "decision as ballot:N at a higher cost); use ballot:N");
  }
  throw std::invalid_argument("fetch control '" + text +
                              "': expected any, all or ballot:N with N in 1..32");
}

std::string to_string(const fetch_control& fetch) {
  switch (fetch.kind) {
    case fetch_kind::any:
      return "any";
    case fetch_kind::all:
      return "all";
    case fetch_kind::ballot:
      return "ballot:" + std::to_string(fetch.idle_threshold);
  }
  return "?";
}

pool_strategy parse_pool_strategy(const std::string& text) {
  if (text == "automatic") return pool_strategy::automatic;
  if (text == "direct") return pool_strategy::direct;
  if (text == "local") return pool_strategy::local;
  if (text == "private_pools") return pool_strategy::private_pools;
  if (text == "hybrid") return pool_strategy::hybrid;
  if (text == "warp_range") return pool_strategy::warp_range;
  if (text == "remapped") return pool_strategy::remapped;
  if (text == "budgeted") return pool_strategy::budgeted;
  if (text == "strided") return pool_strategy::strided;
  throw std::invalid_argument("strategy '" + text +
                              "': expected automatic, direct, strided, local, private_pools, "
                              "hybrid, warp_range, remapped or budgeted");
}

std::string to_string(pool_strategy strategy) {
  switch (strategy) {
    case pool_strategy::automatic:
      return "automatic";
    case pool_strategy::direct:
      return "direct";
    case pool_strategy::local:
      return "local";
    case pool_strategy::private_pools:
      return "private_pools";
    case pool_strategy::hybrid:
      return "hybrid";
    case pool_strategy::warp_range:
      return "warp_range";
    case pool_strategy::remapped:
      return "remapped";
    case pool_strategy::budgeted:
      return "budgeted";
    case pool_strategy::strided:
      return "strided";
  }
  return "?";
}

void validate(const schedule_arguments& args) {
  if (args.chunk == 0) throw_invalid("chunk size", args.chunk, "must be at least 1");
  if (args.deferral < 0) {
    throw_invalid("deferral", args.deferral,
                  "must be at least 1 step, or 0 for the policy's default");
  }
  if (args.budget < 0) {
    throw_invalid(
        "budget", args.budget,
        "must be at least 1 step, or 0 for the default (" + std::to_string(default_budget) + ")");
  }
  if (args.period != 0 && args.period != default_warp_range_period &&
      args.period != long_warp_range_period) {
    throw_invalid("period", args.period,
                  "must be " + std::to_string(default_warp_range_period) + " or " +
                      std::to_string(long_warp_range_period) +
                      " steps (the compiled warp_range periods), or 0 for the default (" +
                      std::to_string(default_warp_range_period) + ")");
  }
  if (args.blocks_per_sm < 0) {
    throw_invalid("blocks per SM", args.blocks_per_sm, "must be positive, or 0 for automatic");
  }
  validate(args.fetch);
  validate(args.switching);
}

void validate(const switching_arguments& a) {
  if (a.switch_every < 1) throw_invalid("switch_every", a.switch_every, "must be at least 1");
}

std::string to_string(const switching_arguments& a) {
  std::string s =
      a.switch_every == 1 ? "immediate" : "deferred every " + std::to_string(a.switch_every);
  s += a.fifo ? ", parked contexts first in first out" : ", parked contexts last in first out";
  return s;
}

std::string to_string(const schedule_arguments& args) {
  if (args.strategy == pool_strategy::automatic) return "automatic";
  if (is_direct_form(args.strategy)) return to_string(args.strategy);
  std::string own;  // the strategy's own setting
  if (args.strategy == pool_strategy::budgeted) own = " budget=" + std::to_string(budget_of(args));
  if (args.strategy == pool_strategy::warp_range)
    own = " period=" + std::to_string(period_of(args));
  return to_string(args.strategy) + own + " " + to_string(args.fetch) +
         " chunk=" + std::to_string(args.chunk) +
         " deferral=" + (args.deferral == 0 ? "auto" : std::to_string(args.deferral)) +
         " blocks/SM=" + (args.blocks_per_sm == 0 ? "auto" : std::to_string(args.blocks_per_sm));
}

std::uint64_t grid_blocks(const schedule_arguments& args, std::uint64_t num_tasks, int sm_count,
                          int max_blocks_per_sm, int auto_limit) {
  validate(args);
  if (sm_count < 1) throw_invalid("SM count", sm_count, "must be at least 1");
  if (max_blocks_per_sm < 1) {
    throw_invalid("blocks per SM that fit", max_blocks_per_sm,
                  "the kernel's registers or shared memory leave no room for one block");
  }
  if (args.blocks_per_sm > max_blocks_per_sm) {
    throw_invalid(
        "blocks per SM", args.blocks_per_sm,
        "at most " + std::to_string(max_blocks_per_sm) + " fit on one SM for this kernel");
  }
  if (args.strategy == pool_strategy::automatic) {
    throw std::invalid_argument(
        "strategy = automatic: resolve it to a schedule before sizing a grid");
  }
  if (args.strategy == pool_strategy::local) {
    // Local pools are static: one block per chunk of tasks, the hardware schedules the rest.
    const std::uint64_t blocks = num_tasks / args.chunk + (num_tasks % args.chunk != 0);
    constexpr std::uint64_t max_grid = 0x7fffffffu;
    if (blocks > max_grid) {
      throw_invalid("chunk size", args.chunk,
                    "Local strategy needs " + std::to_string(blocks) +
                        " blocks for this many tasks, over the launch limit of 2^31-1");
    }
    return blocks;
  }
  int per_sm = args.blocks_per_sm;
  if (per_sm == 0)
    per_sm = auto_limit > 0 ? std::min(max_blocks_per_sm, auto_limit) : max_blocks_per_sm;
  return static_cast<std::uint64_t>(per_sm) * static_cast<std::uint64_t>(sm_count);
}

int auto_blocks_for_tasks(std::uint64_t num_tasks, int sm_count, int block_threads, int least,
                          int tasks_per_lane) {
  if (sm_count < 1) throw_invalid("SM count", sm_count, "must be at least 1");
  if (block_threads < 1) throw_invalid("threads per block", block_threads, "must be at least 1");
  if (least < 1) throw_invalid("least blocks per SM", least, "must be at least 1");
  if (tasks_per_lane < 1) throw_invalid("tasks per lane", tasks_per_lane, "must be at least 1");
  const std::uint64_t per_block = static_cast<std::uint64_t>(sm_count) *
                                  static_cast<std::uint64_t>(block_threads) *
                                  static_cast<std::uint64_t>(tasks_per_lane);
  const std::uint64_t needed = num_tasks / per_block + (num_tasks % per_block != 0);
  constexpr std::uint64_t most = 1024;  // more than any SM holds; grid_blocks() clamps
  return static_cast<int>(
      std::max<std::uint64_t>(static_cast<std::uint64_t>(least), std::min(needed, most)));
}

std::uint64_t direct_blocks(std::uint64_t num_tasks, int block_threads) {
  if (block_threads < 1) throw_invalid("threads per block", block_threads, "must be at least 1");
  const auto per_block = static_cast<std::uint64_t>(block_threads);
  constexpr std::uint64_t max_grid = 0x7fffffffu;
  return std::min(num_tasks / per_block + (num_tasks % per_block != 0), max_grid);
}

std::uint64_t survivor_capacity(std::uint64_t num_tasks) {
  constexpr std::uint64_t least = 65536;
  constexpr std::uint64_t most = std::uint64_t{1} << 24;
  return std::min(num_tasks, std::clamp(num_tasks / 8, least, most));
}

}  // namespace microsched
