// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file task_program.hpp
//! A task program is an iterative kernel in task-context form: how a task begins from its id, how
//! one step advances it, and how it ends. The scheduler, the baselines and the floor all run the
//! same three functions, so their results compare exactly.
//!
//! \code
//! struct my_program {
//!   struct context { ... };                                  // the whole state of one task
//!   __device__ context begin(microsched::task_id t) const;   // initial state of task t
//!   __device__ bool step(context& c) const;                  // one step; true when finished
//!   __device__ void end(microsched::task_id t, const context& c) const;  // write the result
//! };
//! \endcode
//! step() is called only on tasks that have not finished.
//!
//! Optional fast path for cheap steps: `__device__ bool advance(context& c, int budget) const`
//! runs up to `budget` steps (at least one) and returns true if the task finished. The scheduler
//! calls it for each deferral (`deferral` steps) instead of looping over step() itself; a program
//! can then fold the budget into its own termination test (Julia: `iterations >= min(crunch,
//! start + budget)`), so counting the steps costs no instruction per step. It must run the same
//! arithmetic as step() (the results are checked against vanilla, which only calls step()).
//! Programs are passed to kernels by value, so they hold device pointers and parameters, nothing
//! owning.
//!
//! Optional: `static constexpr int unrolled_steps = n;` (1 to 8), how many copies of step() the
//! scheduler's loops unroll (unrolled_steps_of).

#include <concepts>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "microsched/config.hpp"

namespace microsched {

template <class P>
concept task_program = std::is_trivially_copyable_v<P> &&
    std::is_default_constructible_v<typename P::context> &&
    requires(const P& program, typename P::context& context, const typename P::context& done,
             task_id task) {
  { program.begin(task) } -> std::same_as<typename P::context>;
  { program.step(context) } -> std::same_as<bool>;
  { program.end(task, done) } -> std::same_as<void>;
};

//! True when P provides the optional advance(context&, int) fast path.
template <class P>
concept has_advance = requires(const P& program, typename P::context& context, int budget) {
  { program.advance(context, budget) } -> std::same_as<bool>;
};

namespace detail {
template <class P>
constexpr int unrolled_steps_for() {
  if constexpr (requires { P::unrolled_steps; }) {
    static_assert(P::unrolled_steps >= 1 && P::unrolled_steps <= 8,
                  "P::unrolled_steps must be 1 to 8");
    return P::unrolled_steps;
  } else {
    return sizeof(typename P::context) <= 96 ? 8 : 1;
  }
}
}  // namespace detail

//! Steps the scheduler's step loops unroll for P: P::unrolled_steps where the program says,
//! else 8 for contexts of up to 96 bytes, whose steps are mostly short and gain from testing
//! the step count once per eight, and 1 for heavier ones (a path tracer's ray state), whose
//! steps are long: copies of a long step overflow the instruction cache (docs/decisions.md,
//! "The loop of run_steps").
template <class P>
inline constexpr int unrolled_steps_of = detail::unrolled_steps_for<P>();

//! A task program whose tasks each take one of `paths` paths of a branch, known from the task id
//! before the task begins (its input data says which): the remapped strategy regroups the tasks
//! of a block by path before they begin, so that whole warps take one path (lin2018).
//!
//! \code
//!   static constexpr unsigned paths = 4;                      // 2 to 32
//!   __device__ unsigned path(microsched::task_id t) const;    // in [0, paths)
//! \endcode
template <class P>
concept routed_task_program = task_program<P> && requires(const P& program, task_id task) {
  { P::paths } -> std::convertible_to<unsigned>;
  { program.path(task) } -> std::same_as<unsigned>;
} &&(P::paths >= 2 && P::paths <= 32);

namespace detail {
template <class Member>
struct begin_parameter {
  using type = task_id;  // an overloaded or template begin: not read
};
template <class C, class R, class A>
struct begin_parameter<R (C::*)(A) const> {
  using type = A;
};
template <class C, class R, class A>
struct begin_parameter<R (C::*)(A) const noexcept> {
  using type = A;
};
template <class P>
using begin_parameter_t = std::remove_cvref_t<typename begin_parameter<decltype(&P::begin)>::type>;
}  // namespace detail

//! How many tasks P's begin() can name: a begin that takes an integer narrower than task_id (a
//! kernel's `int` index, ported as is) holds ids below its type's maximum + 1.
template <class P>
constexpr task_id begin_id_limit() {
  if constexpr (requires { &P::begin; }) {
    using A = detail::begin_parameter_t<P>;
    if constexpr (std::is_integral_v<A> &&
                  std::numeric_limits<A>::max() < std::numeric_limits<task_id>::max()) {
      return static_cast<task_id>(std::numeric_limits<A>::max()) + 1;
    }
  }
  return std::numeric_limits<task_id>::max();
}

//! Throws std::invalid_argument where `num_tasks` holds ids that P's begin() would cut short
//! (begin_id_limit): such a call would run some tasks twice and others never.
template <class P>
void validate_begin_ids(task_id num_tasks) {
  if constexpr (begin_id_limit<P>() < std::numeric_limits<task_id>::max()) {
    if (num_tasks > begin_id_limit<P>()) {
      throw std::invalid_argument(
          "num_tasks = " + std::to_string(num_tasks) + ": the program's begin() takes a " +
          std::to_string(sizeof(detail::begin_parameter_t<P>) * 8) +
          "-bit id, which names at most " + std::to_string(begin_id_limit<P>()) +
          " tasks; take microsched::task_id (64-bit) and narrow it inside begin()");
    }
  }
}

//! The program says it has paths (a `paths` other than 0, which wrappers use for none).
template <class P>
constexpr bool declares_paths() {
  if constexpr (requires { P::paths; }) {
    return P::paths != 0;
  } else {
    return false;
  }
}

//! static_asserts naming the first missing or wrong piece of a task program, for a readable
//! error where the scheduler or a baseline instantiates it (a concept failure says only
//! "constraints not satisfied").
template <class P>
constexpr bool assert_task_program() {
  static_assert(std::is_trivially_copyable_v<P>,
                "a task program is passed to kernels by value: it must be trivially copyable "
                "(device pointers and parameters, nothing owning)");
  static_assert(
      requires { typename P::context; }, "the program needs a nested type 'context'");
  if constexpr (requires { typename P::context; }) {
    static_assert(std::is_default_constructible_v<typename P::context>,
                  "P::context must be default constructible: idle lanes hold an empty one");
    static_assert(
        requires(const P& p, task_id t) {
          { p.begin(t) } -> std::same_as<typename P::context>;
        },
        "the program needs '__device__ context begin(microsched::task_id) const'");
    static_assert(
        requires(const P& p, typename P::context& c) {
          { p.step(c) } -> std::same_as<bool>;
        },
        "the program needs '__device__ bool step(context&) const' returning true when "
        "the task has finished (const: programs are shared by every lane)");
    static_assert(
        requires(const P& p, task_id t, const typename P::context& c) {
          { p.end(t, c) } -> std::same_as<void>;
        },
        "the program needs '__device__ void end(microsched::task_id, const context&) "
        "const'");
    static_assert(
        has_advance<P> || !requires { &P::advance; },
        "P::advance exists but is not '__device__ bool advance(context&, int budget) "
        "const': the scheduler would silently ignore it");
    static_assert(
        routed_task_program<P> || !declares_paths<P>(),
        "P::paths exists but the program is not routed: it needs '__device__ unsigned "
        "path(microsched::task_id) const' returning exactly unsigned, and 2 <= paths <= 32; "
        "else the remapped strategy would silently never run it");
  }
  return true;
}

}  // namespace microsched
