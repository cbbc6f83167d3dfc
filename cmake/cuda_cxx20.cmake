# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# CUDA C++20 for this project and for everyone who links microsched::microsched.
#
# CMake 3.25 (Debian 12) does not know nvcc's C++20 flag: CUDA_STANDARD 20 adds no flag there, the
# compile feature cuda_std_20 is unknown, and a target that needs C++20 (cxx_std_20 raises the
# CUDA dialect too, unless the target sets CUDA_STANDARD) fails to generate ("requires the language
# dialect CUDA20") as soon as CXX_STANDARD_REQUIRED or CUDA_STANDARD_REQUIRED is on. This file
# teaches CMake the flag in this project's scope and, as a subproject (add_subdirectory,
# FetchContent), in the scope that added it; the installed package does the same in the scope that
# calls find_package (microschedConfig.cmake). Only where CMake knows no flag of its own.
#
# The core library also carries -std=c++20 for CUDA sources itself (nvcc takes the same -std twice
# without a word), for consumer targets outside those scopes. Where CMake knows cuda_std_20 (3.26
# and newer) the library requires it too, so that CMake raises a consumer's lower CUDA_STANDARD
# rather than passing its -std after the library's; with 3.25 such a consumer stops at
# config.hpp's "microsched needs C++20".
if("cuda_std_20" IN_LIST CMAKE_CUDA_COMPILE_FEATURES)
  set(MICROSCHED_CMAKE_KNOWS_CUDA20 ON)
else()
  set(MICROSCHED_CMAKE_KNOWS_CUDA20 OFF)
  if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA" AND NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    if(NOT PROJECT_IS_TOP_LEVEL)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20" PARENT_SCOPE)
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20" PARENT_SCOPE)
    endif()
  endif()
endif()

# Puts the C++20 requirement on `target`'s interface, for the build tree and the installed package
# alike (microschedConfig.cmake adds cuda_std_20 where the consumer's CMake knows it).
function(microsched_require_cxx20 target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PUBLIC $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>)
  if(MICROSCHED_CMAKE_KNOWS_CUDA20)
    target_compile_features(${target} PUBLIC $<BUILD_INTERFACE:cuda_std_20>)
  endif()
endfunction()
