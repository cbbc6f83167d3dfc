# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Test helpers. Host tests run everywhere; gpu tests carry the label `gpu` and exit with 77
# (reported by ctest as skipped, never as passed) where no CUDA device answers.
function(microsched_add_host_test name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE microsched::microsched microsched_test_main doctest::doctest)
  microsched_target_flags(${name})
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS host)
endfunction()

function(microsched_add_gpu_test name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE microsched::microsched microsched_test_main_gpu doctest::doctest)
  microsched_target_flags(${name})
  add_test(NAME ${name} COMMAND ${name})
  # A device suite takes seconds; a hung one fails after five minutes instead of holding the GPU.
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()

# Pure host code rebuilt with ThreadSanitizer (label tsan), with GCC and Clang only. It links no
# CUDA library; the runtime API header is on the include path for error.hpp's declarations only.
function(microsched_add_tsan_test name)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    return()
  endif()
  add_executable(${name} ${PROJECT_SOURCE_DIR}/tests/support/test_main.cpp ${ARGN})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/framework/include
    ${CUDAToolkit_INCLUDE_DIRS})
  target_link_libraries(${name} PRIVATE doctest::doctest Threads::Threads)
  target_compile_options(${name} PRIVATE -fsanitize=thread -g -O1 -Wall -Wextra)
  target_link_options(${name} PRIVATE -fsanitize=thread)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "host;tsan"
    ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1")
endfunction()
