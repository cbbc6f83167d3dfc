# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Default CUDA architectures: the GPU in this machine when one answers, else Hopper (90).
# Users override with -DCMAKE_CUDA_ARCHITECTURES=... (or the CUDAARCHS environment variable).
#
# Top level: runs before enable_language(CUDA) and sets the cache entry.
# Subproject: the consumer has enabled CUDA already, and CMake has put nvcc's own default (its
# oldest architecture, the first of CMAKE_CUDA_ARCHITECTURES_ALL) into the consumer's cache.
# When that default is still there, this project's targets use the default below through a
# normal variable in this directory's scope; the consumer's cache and targets stay untouched.
# (CMake 3.25 keeps no record of that default, and its list of nvcc's architectures predates
# CUDA 13, so the default is taken from nvcc's version: sm_75 from CUDA 13, sm_52 before.)
function(microsched_default_cuda_architectures out)
  find_program(MICROSCHED_NVIDIA_SMI nvidia-smi)
  set(arch 90)
  if(MICROSCHED_NVIDIA_SMI)
    execute_process(COMMAND ${MICROSCHED_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE cap RESULT_VARIABLE rc ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0 AND cap MATCHES "^([0-9]+)\\.([0-9]+)")
      set(arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    endif()
  endif()
  set(${out} ${arch} PARENT_SCOPE)
endfunction()

get_property(_microsched_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if(NOT DEFINED ENV{CUDAARCHS})
  if(NOT "CUDA" IN_LIST _microsched_languages AND NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    microsched_default_cuda_architectures(_microsched_arch)
    set(CMAKE_CUDA_ARCHITECTURES ${_microsched_arch} CACHE STRING
        "CUDA architectures (native GPU if found, else 90)")
    message(STATUS "microsched: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES}")
  elseif("CUDA" IN_LIST _microsched_languages)
    set(_microsched_nvcc_default 52)
    if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 13)
      set(_microsched_nvcc_default 75)
    endif()
    if("${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${_microsched_nvcc_default}")
      microsched_default_cuda_architectures(_microsched_arch)
      set(CMAKE_CUDA_ARCHITECTURES ${_microsched_arch})
      message(STATUS "microsched: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} for its own "
                     "targets (the consumer left nvcc's default ${_microsched_nvcc_default})")
    endif()
  endif()
endif()
