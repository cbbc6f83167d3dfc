# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# CUDA C++20 for this project and for everyone who links microsched::microsched.
#
# CMake 3.25 (Debian 12) does not know nvcc's C++20 flag: CUDA_STANDARD 20 does nothing there and
# the compile feature cuda_std_20 is unknown. This project teaches CMake the flag in its own scope;
# a consumer's scope does not see that, so the core library also carries the flag itself, as an
# interface compile option for CUDA sources (nvcc accepts the flag twice, and a later -std wins
# over an earlier one with a warning). Where CMake knows cuda_std_20 the library requires that
# feature too, so CMake raises a consumer's lower CUDA_STANDARD instead of passing two flags.
if("cuda_std_20" IN_LIST CMAKE_CUDA_COMPILE_FEATURES)
  set(MICROSCHED_CMAKE_KNOWS_CUDA20 ON)
else()
  set(MICROSCHED_CMAKE_KNOWS_CUDA20 OFF)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
endif()

# Puts the C++20 requirement (C++ and CUDA) on `target`'s interface, for the build tree and the
# installed package alike (microschedConfig.cmake adds cuda_std_20 where the consumer's CMake
# knows it).
function(microsched_require_cxx20 target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PUBLIC $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>)
  if(MICROSCHED_CMAKE_KNOWS_CUDA20)
    target_compile_features(${target} PUBLIC $<BUILD_INTERFACE:cuda_std_20>)
  endif()
endfunction()
