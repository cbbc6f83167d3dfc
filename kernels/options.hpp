// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file options.hpp
//! Reading workload options (name=value strings) with errors that name the option and value.

#include <array>
#include <optional>
#include <string>

#include "workload.hpp"

namespace microsched::workloads {

//! Throws std::invalid_argument if `options` holds a name not in `known`.
void reject_unknown(const std::string& workload, const options_map& options,
                    const std::vector<parameter>& known);

//! The option's value, or the parameter's default.
[[nodiscard]] std::string option_or_default(const options_map& options,
                                            const std::vector<parameter>& known,
                                            const std::string& name);

//! Integer option in [min, max]; throws std::invalid_argument naming it otherwise.
[[nodiscard]] long long integer_option(const options_map& options,
                                       const std::vector<parameter>& known, const std::string& name,
                                       long long min, long long max);

//! Real option in [min, max]; throws std::invalid_argument naming it otherwise.
[[nodiscard]] double real_option(const options_map& options, const std::vector<parameter>& known,
                                 const std::string& name, double min, double max);

//! Pair option "A,B" (e.g. a complex number RE,IM), each part in [min, max]; an empty value gives
//! nullopt. Throws std::invalid_argument naming the option and the value otherwise.
[[nodiscard]] std::optional<std::array<double, 2>> real_pair_option(
    const options_map& options, const std::vector<parameter>& known, const std::string& name,
    double min, double max);

}  // namespace microsched::workloads
