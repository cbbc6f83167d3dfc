// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file managed_program.hpp
//! A managed-branch task program: a task program whose step marks branches as managed through a
//! warp-level gate it receives. The same step compiles against every gate: the switching
//! driver's (vote and switch) and `divergent_gate` (each lane its own path: the vanilla kernel).
//!
//! \code
//! struct my_program {
//!   static constexpr int managed_branches = 1;
//!   struct context { ... };                      // everything a step needs, nothing in locals
//!   __device__ context begin(microsched::task_id t) const;
//!   template <class Gate>
//!   __device__ bool step(context& c, Gate& gate) const {
//!     if (gate.active()) { ... c.hit = ...; }     // code outside managed paths: active lanes only
//!     if (gate.take(microsched::switching::branch<0>, c.hit)) { ... }  // then path
//!     else if (gate.active()) { ... }                                  // else path
//!     return gate.active() && c.done;             // finished (read only on active lanes)
//!   }
//!   __device__ void end(microsched::task_id t, const context& c) const;
//! };
//! \endcode
//! Every lane of the warp calls step() and reaches every take() in the same order (take() is
//! warp-collective). After take() the lane may hold another task's context: a value computed
//! before the branch must live in the context, not in a local variable.

#include <concepts>
#include <type_traits>

#include "microsched/config.hpp"
#include "microsched/switching/task_context.hpp"

namespace microsched::switching {

//! Names managed branch K (0-based) at compile time: `gate.take(branch<0>, cond)`.
template <int K>
struct branch_index {
  static constexpr int value = K;
};
template <int K>
inline constexpr branch_index<K> branch{};

//! The gate of a vanilla kernel: every lane runs its own path and is always active. Not
//! collective: lanes of a vanilla warp leave the loop at different times.
struct divergent_gate {
  static constexpr bool collective = false;
  [[nodiscard]] MICROSCHED_HD bool active() const { return true; }
  template <int K>
  [[nodiscard]] MICROSCHED_HD bool take(branch_index<K>, bool cond) const {
    return cond;
  }
};

//! True when every lane of the warp calls the step in step with the others under this gate
//! (`static constexpr bool collective = true`; the switching driver's gate): code outside the
//! managed paths may then use full-warp intrinsics (__ballot_sync(0xffffffff, ...)), e.g. to end
//! a loop for the whole warp once enough lanes wait at a branch. False for gates without the
//! member.
template <class Gate>
inline constexpr bool collective_gate = requires {
  requires Gate::collective;
};

template <class P>
concept managed_task_program =
    std::is_trivially_copyable_v<P> && std::is_default_constructible_v<typename P::context> &&
    std::is_trivially_copyable_v<typename P::context> && requires {
  { P::managed_branches } -> std::convertible_to<int>;
} &&(P::managed_branches >= 1 && P::managed_branches <= max_managed_branches) &&
    requires(const P& program, typename P::context& context, const typename P::context& done,
             task_id task, divergent_gate& gate) {
  { program.begin(task) } -> std::same_as<typename P::context>;
  { program.step(context, gate) } -> std::same_as<bool>;
  { program.end(task, done) } -> std::same_as<void>;
};

//! static_asserts naming the first missing piece, for a readable error at the scheduler.
template <class P>
constexpr bool assert_managed_program() {
  static_assert(std::is_trivially_copyable_v<P>,
                "a managed task program is passed to kernels by value: it must be trivially "
                "copyable (device pointers and parameters, nothing owning)");
  static_assert(
      requires { typename P::context; }, "the program needs a nested type 'context'");
  static_assert(std::is_trivially_copyable_v<typename P::context>,
                "P::context must be trivially copyable: it is swapped through shared memory");
  static_assert(
      requires {
        { P::managed_branches } -> std::convertible_to<int>;
      },
      "the program needs 'static constexpr int managed_branches' (how many take() "
      "points its step has)");
  if constexpr (requires { P::managed_branches; }) {
    static_assert(P::managed_branches >= 1 && P::managed_branches <= max_managed_branches,
                  "managed_branches must be in 1..32");
  }
  static_assert(
      requires(const P& p, typename P::context& c, divergent_gate& g) {
        { p.step(c, g) } -> std::same_as<bool>;
      },
      "the program needs 'template <class Gate> bool step(context&, Gate&) const' "
      "that calls gate.take(branch<k>, cond) at its managed branches");
  static_assert(
      requires(const P& p, task_id t) {
        { p.begin(t) } -> std::same_as<typename P::context>;
      },
      "the program needs 'context begin(task_id) const'");
  static_assert(
      requires(const P& p, task_id t, const typename P::context& c) {
        { p.end(t, c) } -> std::same_as<void>;
      },
      "the program needs 'void end(task_id, const context&) const'");
  return true;
}

}  // namespace microsched::switching
