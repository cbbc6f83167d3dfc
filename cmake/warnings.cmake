# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Project-wide compile flags for our own targets. The build prints real warnings only: ptxas's
# register-spill notices (one per kernel instantiation that spills, hundreds in all) are opt-in;
# a program reports its own kernels' spills at run time as plan().resources.local_bytes.
option(MICROSCHED_PTXAS_SPILLS "Print ptxas's register-spill notice for every kernel that spills" OFF)

function(microsched_target_flags target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall -lineinfo>)
  # GCC 12 warns -Wrestrict inside libstdc++'s own inlined memcpy for "literal" + std::string&&,
  # about copies of more than 2^63 bytes that cannot happen: a false positive of that release's
  # -Wrestrict, fifteen lines for each such expression. Other compilers keep the warning.
  target_compile_options(${target} PRIVATE
    $<$<AND:$<COMPILE_LANG_AND_ID:CXX,GNU>,$<VERSION_GREATER_EQUAL:$<CXX_COMPILER_VERSION>,12>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)
  if(MICROSCHED_PTXAS_SPILLS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-warn-spills>)
  endif()
endfunction()
