// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file benchmark_main.hpp
//! The program contract (program_main.hpp) for Google Benchmark programs. Google Benchmark's own
//! parser exits 0 on a bad --benchmark_format, leaves a value it cannot parse for the caller to
//! report, and learns of an unwritable --benchmark_out or a bad --benchmark_filter only once the
//! GPU work is done; parse_benchmark_arguments checks all of these first, adds --version, and
//! reports every refusal in the one error-line format with exit 2.
//!
//! @code
//! int main(int argc, char** argv) {
//!   MICROSCHED_PARSE_BENCHMARK_ARGUMENTS("bench_remap", argc, argv);
//!   return programs::run_main("bench_remap", [] {
//!     programs::require_gpu();
//!     register_all();
//!     return programs::run_benchmarks("bench_remap");
//!   });
//! }
//! @endcode

#include <benchmark/benchmark.h>
#include <regex.h>

#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "checked_cli.hpp"
#include "output_path.hpp"
#include "program_main.hpp"

namespace microsched::programs {

namespace detail {

//! The program's name, for the help text (Google Benchmark's help printer takes no argument).
inline std::string& benchmark_program() {
  static std::string name;
  return name;
}

inline void print_benchmark_help() {
  std::printf(
      "%s: a Google Benchmark program of microsched %s. Without a GPU it exits %d once "
      "its arguments are checked.\n\n  --version\n    print the program's name and "
      "microsched's version, then exit\n",
      benchmark_program().c_str(), version().c_str(), no_gpu_exit_code);
  benchmark::PrintDefaultHelp();
}

//! The value of `arg` when it is "--NAME=VALUE" (Google Benchmark's only form of a value).
inline std::optional<std::string> flag_value(std::string_view arg, std::string_view name) {
  if (arg.size() < name.size() + 3 || arg.substr(0, 2) != "--" ||
      arg.substr(2, name.size()) != name || arg[2 + name.size()] != '=') {
    return std::nullopt;
  }
  return std::string(arg.substr(name.size() + 3));
}

//! Throws std::invalid_argument unless Google Benchmark can use `filter`: a POSIX extended
//! regular expression, negated by one leading '-'.
inline void validate_filter(const std::string& filter) {
  const std::string pattern = !filter.empty() && filter.front() == '-' ? filter.substr(1) : filter;
  regex_t compiled;
  const int rc = ::regcomp(&compiled, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char why[256];
    ::regerror(rc, &compiled, why, sizeof why);
    throw std::invalid_argument("--benchmark_filter = '" + filter +
                                "': not a regular expression (" + why + ")");
  }
  ::regfree(&compiled);
}

//! Throws std::invalid_argument naming the first value that Google Benchmark would take for a
//! call for help, would refuse only after the GPU work, or would refuse with a line of its own.
inline void validate_benchmark_values(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    for (const char* name : {"benchmark_format", "benchmark_out_format"}) {
      if (const auto v = flag_value(arg, name);
          v && *v != "console" && *v != "json" && *v != "csv") {
        throw std::invalid_argument(std::string("--") + name + " = '" + *v +
                                    "': must be console, json or csv");
      }
    }
    if (const auto v = flag_value(arg, "benchmark_out"))
      validate_output_file("--benchmark_out", *v);
    if (const auto v = flag_value(arg, "benchmark_filter")) validate_filter(*v);
    for (const char* name : {"benchmark_repetitions", "v"}) {
      if (const auto v = flag_value(arg, name)) {
        (void)parse_checked<int>(std::string("--") + name, *v, name[0] == 'v' ? 0 : 1, 1 << 30);
      }
    }
    for (const char* name : {"benchmark_min_time", "benchmark_min_warmup_time"}) {
      // A number of seconds; newer Google Benchmarks also take "2s" and "100x".
      if (const auto v = flag_value(arg, name)) {
        const bool suffix = !v->empty() && (v->back() == 's' || v->back() == 'x');
        (void)parse_checked<double>(std::string("--") + name,
                                    suffix ? v->substr(0, v->size() - 1) : *v, 0.0, 1e9);
      }
    }
    if (const auto v = flag_value(arg, "benchmark_time_unit");
        v && *v != "ns" && *v != "us" && *v != "ms" && *v != "s") {
      throw std::invalid_argument("--benchmark_time_unit = '" + *v + "': must be ns, us, ms or s");
    }
  }
}

}  // namespace detail

//! Parses a Google Benchmark program's command line before the GPU is looked for. Returns
//! nothing when the program goes on; otherwise the exit code: 0 after --version or --help
//! (Google Benchmark's help, which ends the process itself with 0), bad_arguments_exit_code after
//! one line "PROGRAM: error: ..." naming the argument (an unknown flag, a value Google Benchmark
//! cannot parse or would refuse late, an unwritable --benchmark_out).
[[nodiscard]] inline std::optional<int> parse_benchmark_arguments(const char* program, int& argc,
                                                                  char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--version") {
      std::printf("%s\n", version_line(program).c_str());
      return success_exit_code;
    }
  }
  try {
    detail::validate_benchmark_values(argc, argv);
  } catch (const std::invalid_argument& e) {
    print_error(program, std::string(e.what()) + " (see --help)");
    return bad_arguments_exit_code;
  }
  detail::benchmark_program() = program;
  benchmark::Initialize(&argc, argv, detail::print_benchmark_help);
  if (argc > 1) {  // what Initialize did not take: unknown, or a value it could not parse
    print_error(program, std::string("unrecognised argument '") + argv[1] + "' (see --help)");
    return bad_arguments_exit_code;
  }
  return std::nullopt;
}

//! Runs the benchmarks the flags select; returns the exit code: bad_arguments_exit_code when
//! --benchmark_filter matches none of them (Google Benchmark itself would report success).
[[nodiscard]] inline int run_benchmarks(const char* program) {
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (ran == 0) {
    print_error(program,
                "--benchmark_filter matches no benchmark (--benchmark_list_tests lists "
                "them)");
    return bad_arguments_exit_code;
  }
  return success_exit_code;
}

}  // namespace microsched::programs

//! main's first line in a Google Benchmark program: parse, and return at once after --help,
//! --version or a bad argument.
#define MICROSCHED_PARSE_BENCHMARK_ARGUMENTS(program, argc, argv)                         \
  if (const auto microsched_parse_exit =                                                  \
          ::microsched::programs::parse_benchmark_arguments((program), (argc), (argv))) { \
    return *microsched_parse_exit;                                                        \
  }
