# Default CUDA architectures: the GPU in this machine when one answers, else Hopper (90).
# Must run before enable_language(CUDA). Users override with -DCMAKE_CUDA_ARCHITECTURES=...
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  find_program(MICROSCHED_NVIDIA_SMI nvidia-smi)
  set(_arch 90)
  if(MICROSCHED_NVIDIA_SMI)
    execute_process(COMMAND ${MICROSCHED_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _cap RESULT_VARIABLE _rc ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_rc EQUAL 0 AND _cap MATCHES "^([0-9]+)\\.([0-9]+)")
      set(_arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    endif()
  endif()
  set(CMAKE_CUDA_ARCHITECTURES ${_arch} CACHE STRING "CUDA architectures (native GPU if found, else 90)")
  message(STATUS "microsched: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES}")
endif()
