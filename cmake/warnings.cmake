# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Project-wide compile flags for our own targets.
function(microsched_target_flags target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall -Xptxas=-warn-spills -lineinfo>)
endfunction()
