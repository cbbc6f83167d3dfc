// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file fast_divmod.hpp
//! Division by a run-time constant as a multiply and shifts (Granlund & Montgomery, "Division by
//! invariant integers using multiplication", 1994, Figure 4.1): the divisor's magic number is
//! computed once on the host, so a kernel's `begin` splits a task id into coordinates at the cost
//! of a vanilla kernel's index arithmetic instead of a 64-bit division (a call of ~70
//! instructions on the GPU). Exact for every dividend of the width and every divisor >= 1.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "microsched/config.hpp"

namespace microsched {

namespace detail {
MICROSCHED_HD std::uint32_t mul_hi(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b) >> 32);
#endif
}
//! A 128-bit unsigned integer (a GCC and Clang extension, which nvcc's host compiler provides).
__extension__ using uint128 = unsigned __int128;

MICROSCHED_HD std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<uint128>(a) * b) >> 64);
#endif
}
}  // namespace detail

//! Divides unsigned integers of type U (std::uint32_t or std::uint64_t) by a fixed divisor.
template <class U>
class fast_divmod {
  static_assert(std::is_same_v<U, std::uint32_t> || std::is_same_v<U, std::uint64_t>,
                "fast_divmod works on std::uint32_t or std::uint64_t");

 public:
  fast_divmod() = default;
  //! Throws std::invalid_argument for a divisor of 0.
  explicit fast_divmod(U divisor) : divisor_(divisor) {
    if (divisor == 0) throw std::invalid_argument("fast_divmod: divisor = 0: must be at least 1");
    constexpr int bits = sizeof(U) * 8;
    int l = 0;  // ceil(log2(divisor))
    while (l < bits && (U{1} << l) < divisor) ++l;
    // m' = floor(2^bits * (2^l - d) / d) + 1, computed in twice the width.
    using wide = std::conditional_t<sizeof(U) == 4, std::uint64_t, detail::uint128>;
    const wide two_l = l == bits ? (wide{1} << bits) : static_cast<wide>(U{1} << l);
    multiplier_ = static_cast<U>(((wide{1} << bits) * (two_l - divisor)) / divisor + 1);
    shift_1_ = l < 1 ? l : 1;
    shift_2_ = l < 1 ? 0 : l - 1;
  }

  [[nodiscard]] MICROSCHED_HD U divisor() const { return divisor_; }

  //! n / divisor
  [[nodiscard]] MICROSCHED_HD U div(U n) const {
    const U t = detail::mul_hi(multiplier_, n);
    return (t + ((n - t) >> shift_1_)) >> shift_2_;
  }
  //! n / divisor and n % divisor
  MICROSCHED_HD void divmod(U n, U& quotient, U& remainder) const {
    quotient = div(n);
    remainder = n - quotient * divisor_;
  }

 private:
  U divisor_ = 1;
  U multiplier_ = 1;
  int shift_1_ = 0;
  int shift_2_ = 0;
};

}  // namespace microsched
