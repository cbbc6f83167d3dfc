// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file step_counts.hpp
//! A work signature from one counted slice of a call (driver/counting_kernel.cuh), and the
//! schedule it predicts for the rest: a first call has no times to go by, and a slice's time is
//! no guide either (a slice of a long-tailed call lasts as long as its longest task, whatever
//! its size), but its steps are.

#include <cstdint>
#include <string>

namespace microsched {

struct step_counts {
  //! Steps a task runs in the budgeted strategy's direct pass (its default budget).
  static constexpr unsigned long long budget = 64;
  unsigned long long steps = 0;         //!< over every task
  unsigned long long warp_slowest = 0;  //!< over warps: 32 x the slowest lane's steps
  unsigned long long over_budget = 0;   //!< tasks of more than `budget` steps
};

//! What step_counts predict.
enum class predicted_form {
  direct,    //!< the lanes of a warp take about as long: nothing to rebalance
  budgeted,  //!< few long tasks: a direct pass of `budget` steps, the survivors on pools
  pooled,    //!< many long tasks: private pools of one task
  ranged     //!< short tasks of unequal length: ranges of tasks a warp refills every few steps
};

//! direct where the warps' lanes are busy more than `busy` of the time (steps / warp_slowest);
//! ranged where no task runs past the budget (the budgeted strategy's direct pass would do all
//! the work, with nothing left to rebalance); budgeted where at most `few` of the tasks do (the
//! survivor queue holds an eighth of the tasks), pooled otherwise. `tasks` is the slice's task
//! count.
[[nodiscard]] predicted_form predict(const step_counts& counts, std::uint64_t tasks,
                                     double busy = 0.7, double few = 0.1);

//! "3.1 steps a task, lanes busy 42%, 2.0% past 64 steps"
[[nodiscard]] std::string describe(const step_counts& counts, std::uint64_t tasks);

}  // namespace microsched
