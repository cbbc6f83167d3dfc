# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# add_subdirectory(<area>) for every enabled feature area that has a CMakeLists.txt in this folder.
macro(microsched_add_areas)
  foreach(area ${MICROSCHED_AREAS})
    string(TOUPPER ${area} AREA)
    if(MICROSCHED_WITH_${AREA} AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${area}/CMakeLists.txt)
      add_subdirectory(${area})
    endif()
  endforeach()
endmacro()
