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
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
endfunction()
