#pragma once
//! @file invalid.hpp
//! std::invalid_argument naming the parameter and its value, for the pure host parts of the
//! pipeline (they include no CUDA header, so they build under ThreadSanitizer without CUDA).

#include <sstream>
#include <stdexcept>
#include <string>

namespace microsched::pipeline::detail {

template <class T>
[[noreturn]] void invalid(const char* name, const T& value, const std::string& why) {
  std::ostringstream message;
  message << name << " = " << value << ": " << why;
  throw std::invalid_argument(message.str());
}

}  // namespace microsched::pipeline::detail
