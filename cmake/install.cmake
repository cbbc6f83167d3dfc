# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The installed package: headers, libraries, microschedConfig.cmake and its version file, so that
# find_package(microsched 0.1 CONFIG) gives microsched::microsched and one target per area library.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(MICROSCHED_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/microsched)
# Headers CMake writes (microsched/version.hpp): on the core's include path in the build tree,
# installed next to the others.
set(MICROSCHED_GENERATED_INCLUDEDIR ${PROJECT_BINARY_DIR}/include)

# microsched_install_library(<target> [NAME <name>])
# Exports <target> as microsched::<name> (default: <target>), in the install tree and, through an
# alias of the same name, in the build tree, so that add_subdirectory and find_package consumers
# write the same target names. An area's CMakeLists.txt calls it once for each library it offers.
function(microsched_install_library target)
  cmake_parse_arguments(arg "" "NAME" "" ${ARGN})
  if(NOT arg_NAME)
    set(arg_NAME ${target})
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${arg_NAME})
  if(NOT TARGET microsched::${arg_NAME})
    add_library(microsched::${arg_NAME} ALIAS ${target})
  endif()
  if(MICROSCHED_INSTALL)
    install(TARGETS ${target} EXPORT microschedTargets
      ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
      LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
  set_property(GLOBAL APPEND PROPERTY MICROSCHED_INSTALLED_LIBRARIES ${arg_NAME})
endfunction()

# Called once at the end of the root CMakeLists.txt: headers, export set, config and version.
function(microsched_install_package)
  if(NOT MICROSCHED_INSTALL)
    return()
  endif()
  # Headers of areas that are switched off stay out of the package, but for the switching and
  # remap headers, which the scheduler itself includes.
  set(excluded)
  foreach(area ${MICROSCHED_AREAS})
    string(TOUPPER ${area} AREA)
    if(NOT MICROSCHED_WITH_${AREA} AND NOT area MATCHES "^(switching|remap)$")
      list(APPEND excluded PATTERN ${area} EXCLUDE)
    endif()
  endforeach()
  # The include folder reaches consumers once, through microsched::microsched's
  # INSTALL_INTERFACE; the area libraries link the core.
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/framework/include/microsched
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} PATTERN "*.in" EXCLUDE ${excluded})
  install(FILES ${MICROSCHED_GENERATED_INCLUDEDIR}/microsched/version.hpp
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/microsched)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/microsched)
  install(EXPORT microschedTargets NAMESPACE microsched::
    DESTINATION ${MICROSCHED_INSTALL_CMAKEDIR})
  get_property(MICROSCHED_COMPONENTS GLOBAL PROPERTY MICROSCHED_INSTALLED_LIBRARIES)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/microschedConfig.cmake.in
    ${PROJECT_BINARY_DIR}/microschedConfig.cmake
    INSTALL_DESTINATION ${MICROSCHED_INSTALL_CMAKEDIR})
  # 0.x: a minor version may break the API, so only the same minor version is compatible
  # (CHANGELOG.md says which version broke what).
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/microschedConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES
    ${PROJECT_BINARY_DIR}/microschedConfig.cmake
    ${PROJECT_BINARY_DIR}/microschedConfigVersion.cmake
    DESTINATION ${MICROSCHED_INSTALL_CMAKEDIR})
endfunction()
