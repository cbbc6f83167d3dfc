// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file checked_cli.hpp
//! Command-line numbers parsed with checks: the whole text must be a number of the option's type
//! and within its range. CLI11 alone takes "-1" for an unsigned option as 2^64 - 1 and
//! "99999999999999999999" as the largest value; here both are errors that name the option and
//! the value, raised while parsing, so before any GPU is looked for.

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <type_traits>

#include "program_main.hpp"

namespace microsched::programs {

//! `text` as a T in [min, max]; throws std::invalid_argument naming `name` and `text` otherwise.
template <class T>
[[nodiscard]] T parse_checked(const std::string& name, const std::string& text, T min, T max) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                "parse_checked: integer or floating-point options only");
  const auto range = [&] {
    std::ostringstream s;
    s << "must be in [" << +min << ", " << +max << "]";
    return s.str();
  };
  T value{};
  const char* first = text.data();
  const char* last = first + text.size();
  // from_chars takes no '+' and, for unsigned types, no '-': "-1" is not a count.
  const auto [end, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::result_out_of_range) {
    throw std::invalid_argument(name + " = " + text + ": out of range, " + range());
  }
  if (std::is_unsigned_v<T> && !text.empty() && text.front() == '-') {
    throw std::invalid_argument(name + " = " + text + ": " + range());
  }
  if (ec != std::errc() || end != last || text.empty()) {
    throw std::invalid_argument(name + " = '" + text + "': not " +
                                (std::is_integral_v<T> ? "a whole number" : "a number") + ", " +
                                range());
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(value)) throw std::invalid_argument(name + " = " + text + ": " + range());
  }
  if (value < min || value > max) throw std::invalid_argument(name + " = " + text + ": " + range());
  return value;
}

//! Adds option `name` (e.g. "--chunk" or "-n,--tasks") storing into `value`, checked by
//! parse_checked against [min, max]; the help shows the range and the default.
template <class T>
CLI::Option* add_checked(CLI::App& app, const std::string& name, T& value, const std::string& help,
                         T min, T max) {
  std::ostringstream describe;
  describe << help << " [" << +min << ".." << +max << "]";
  std::ostringstream default_text;
  default_text << +value;
  const std::string long_name =
      name.substr(name.rfind(',') == std::string::npos ? 0 : name.rfind(',') + 1);
  CLI::Option* option = app.add_option(
      name,
      [&value, long_name, min, max](const CLI::results_t& results) {
        value = parse_checked<T>(long_name, results.back(), min, max);
        return true;
      },
      describe.str());
  option->type_name(std::is_integral_v<T> ? "INT" : "FLOAT");
  option->default_str(default_text.str());
  return option;
}

//! The program's name without its folder (CLI11 names an unnamed app after argv[0]).
[[nodiscard]] inline std::string program_name(const CLI::App& app) {
  const std::string& path = app.get_name();
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

//! Parses the command line, with --version added where the program has none. Returns nothing
//! when the program goes on; otherwise the exit code: 0 after --help or --version (printed on
//! stdout), bad_arguments_exit_code after one line "PROGRAM: error: ..." naming the option and
//! the value.
[[nodiscard]] inline std::optional<int> parse_arguments(CLI::App& app, int argc,
                                                        const char* const* argv) {
  if (app.get_version_ptr() == nullptr) {
    app.set_version_flag(
        "--version", [&app] { return version_line(program_name(app)); },
        "print the program's name and microsched's version, then exit");
  }
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error(program_name(app), std::string(e.what()) + " (see --help)");
    return bad_arguments_exit_code;
  } catch (const std::invalid_argument& e) {  // parse_checked, from an option's callback
    print_error(program_name(app), std::string(e.what()) + " (see --help)");
    return bad_arguments_exit_code;
  }
}

}  // namespace microsched::programs

//! main's first lines: parse, and return at once after --help or a bad argument.
#define MICROSCHED_PARSE_ARGUMENTS(app, argc, argv)                         \
  if (const auto microsched_parse_exit =                                    \
          ::microsched::programs::parse_arguments((app), (argc), (argv))) { \
    return *microsched_parse_exit;                                          \
  }
