// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// task_program.hpp's host-side checks: a begin() narrower than task_id refuses calls whose ids it
// would cut, and every other begin names every task; a program that declares paths is routed.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "microsched/task_program.hpp"

using microsched::begin_id_limit;
using microsched::task_id;
using microsched::validate_begin_ids;

namespace {

// Host stand-ins for the device programs: the checks read begin()'s parameter type only.
template <class Id>
struct program_taking {
  struct context {
    int steps = 0;
  };
  context begin(Id) const { return {}; }
  bool step(context&) const { return true; }
  void end(task_id, const context&) const {}
};

struct overloaded_begin {
  struct context {};
  context begin(task_id) const { return {}; }
  context begin(int) const { return {}; }
  bool step(context&) const { return true; }
  void end(task_id, const context&) const {}
};

struct template_begin {
  struct context {};
  template <class T>
  context begin(T) const {
    return {};
  }
  bool step(context&) const { return true; }
  void end(task_id, const context&) const {}
};

constexpr task_id all = std::numeric_limits<task_id>::max();

}  // namespace

TEST_CASE("begin_id_limit: the tasks a begin() parameter names") {
  static_assert(microsched::task_program<program_taking<int>>);
  CHECK(begin_id_limit<program_taking<task_id>>() == all);
  CHECK(begin_id_limit<program_taking<const task_id&>>() == all);
  CHECK(begin_id_limit<program_taking<std::int64_t>>() == task_id{1} << 63);
  CHECK(begin_id_limit<program_taking<int>>() == task_id{1} << 31);
  CHECK(begin_id_limit<program_taking<unsigned>>() == task_id{1} << 32);
  CHECK(begin_id_limit<program_taking<std::uint16_t>>() == task_id{1} << 16);
  CHECK(begin_id_limit<program_taking<double>>() == all);  // not an integer: not read
  CHECK(begin_id_limit<overloaded_begin>() == all);        // overloads are not read
  CHECK(begin_id_limit<template_begin>() == all);
}

TEST_CASE("validate_begin_ids: refuses exactly the calls whose ids begin() would cut") {
  CHECK_NOTHROW(validate_begin_ids<program_taking<int>>(0));
  CHECK_NOTHROW(validate_begin_ids<program_taking<int>>(task_id{1} << 31));
  CHECK_THROWS_AS(validate_begin_ids<program_taking<int>>((task_id{1} << 31) + 1),
                  std::invalid_argument);
  CHECK_NOTHROW(validate_begin_ids<program_taking<unsigned>>(task_id{1} << 32));
  CHECK_THROWS_AS(validate_begin_ids<program_taking<unsigned>>((task_id{1} << 32) + 1),
                  std::invalid_argument);
  CHECK_NOTHROW(validate_begin_ids<program_taking<task_id>>(all));
  try {
    validate_begin_ids<program_taking<int>>(3000000000ull);
    FAIL("no throw");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("num_tasks = 3000000000") == 0);
    CHECK(what.find("32-bit id") != std::string::npos);
    CHECK(what.find("2147483648 tasks") != std::string::npos);
    CHECK(what.find("microsched::task_id") != std::string::npos);
  }
}

namespace {
template <class Path>
struct program_with_paths : program_taking<task_id> {
  static constexpr unsigned paths = 2;
  Path path(task_id t) const { return static_cast<Path>(t & 1); }
};
struct wrapper_without_paths : program_taking<task_id> {
  static constexpr unsigned paths = 0;  // a wrapper of an unrouted program says none
};
}  // namespace

TEST_CASE("a program that declares paths must be routed, or assert_task_program says why") {
  using microsched::declares_paths;
  using microsched::routed_task_program;
  CHECK(routed_task_program<program_with_paths<unsigned>>);
  // path() returning int: declared, not routed, so assert_task_program stops the build.
  CHECK(declares_paths<program_with_paths<int>>());
  CHECK_FALSE(routed_task_program<program_with_paths<int>>);
  CHECK_FALSE(declares_paths<wrapper_without_paths>());
  CHECK_FALSE(declares_paths<program_taking<task_id>>());
}
