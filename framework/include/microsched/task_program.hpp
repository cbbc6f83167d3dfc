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
//! step() is called only on tasks that have not finished. Programs are passed to kernels by
//! value, so they hold device pointers and parameters, nothing owning.

#include <concepts>
#include <type_traits>

#include "microsched/config.hpp"

namespace microsched {

template <class P>
concept task_program =
    std::is_trivially_copyable_v<P> && std::is_default_constructible_v<typename P::context> &&
    requires(const P& program, typename P::context& context, const typename P::context& done,
             task_id task) {
      { program.begin(task) } -> std::same_as<typename P::context>;
      { program.step(context) } -> std::same_as<bool>;
      { program.end(task, done) } -> std::same_as<void>;
    };

}  // namespace microsched
