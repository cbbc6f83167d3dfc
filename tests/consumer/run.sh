#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds projects of one's own the ways docs/use-in-your-project.md describes, and runs their
# programs where a GPU answers. Each project folder is laid out as a user's would be: its
# CMakeLists.txt with port.cu, remap.cu and version.cpp (src/) next to it.
#   installed/          find_package(microsched) against a fresh `cmake --install` of BUILD
#   strict/             the same with CMAKE_{CXX,CUDA}_STANDARD_REQUIRED, COMPONENTS, the shared
#                       CUDA runtime, and a C++-only program
#   missing_component/  find_package(... COMPONENTS no_such_library) must fail
#   (again installed/)  against a package built with every area switched off
#   subdirectory/       add_subdirectory(microsched), a link to this checkout: only the libraries
#   fetchcontent/       FetchContent from this checkout's git repository, C++20 required
#   nvcc_build.sh       one plain nvcc line against the install; without -std=c++20, one clear error
# Usage: tests/consumer/run.sh BUILD [WORK]   BUILD: a configured and built microsched build folder;
# WORK: scratch folder (default BUILD/consumer). A program that finds no GPU exits 77 and is
# reported as skipped; any other failure fails the script.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:?usage: tests/consumer/run.sh BUILD [WORK]}
build=$(cd "$build" && pwd)  # absolute: CMake reads a relative CMAKE_PREFIX_PATH from elsewhere
work=${2:-$build/consumer}
archs=${CMAKE_CUDA_ARCHITECTURES:-90}
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
version=$(sed -n 's/^project(microsched VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
test -n "$version"

fail() {
  echo "error: $*" >&2
  exit 1
}
# A user's project folder: the CMakeLists.txt of NAME/ and the sources, side by side.
project_folder() {
  mkdir -p "$work/$1-src"
  cp "$here/$1/CMakeLists.txt" "$here"/src/*.cu "$here"/src/*.cpp "$work/$1-src/"
  echo "$work/$1-src"
}
# Configures project folder SRC into $work/NAME, a Release build, its output in $work/NAME.log.
# Usage: configure_project NAME SRC [CMAKE_ARGUMENT ...]
configure_project() {
  local name=$1 src=$2
  shift 2
  cmake -S "$src" -B "$work/$name" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="$archs" "$@" >"$work/$name.log"
}
# The link command of TARGET in the ninja build BUILD_DIR.
link_command() { ninja -C "$1" -t commands "$2" | tail -n 1; }

echo "== cmake --install $build --prefix $work/prefix"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
package=$work/prefix/lib/cmake/microsched
for file in "$package/microschedConfig.cmake" "$package/microschedConfigVersion.cmake" \
  "$work/prefix/include/microsched/version.hpp" "$work/prefix/share/doc/microsched/LICENSE"; do
  test -f "$file" || fail "the install lacks $file"
done
grep -q "MICROSCHED_VERSION_STRING \"$version\"" "$work/prefix/include/microsched/version.hpp" ||
  fail "version.hpp does not say $version"
if find "$work/prefix/include" -name '*.in' | grep -q .; then fail "a template was installed"; fi
# The include folder reaches a consumer once (through microsched::microsched).
if grep -E 'INTERFACE_INCLUDE_DIRECTORIES ".*include;.*include"' "$package/microschedTargets.cmake"; then
  fail "the package exports its include folder twice"
fi

echo "== consumer with find_package"
src=$(project_folder installed)
configure_project installed "$src" -DCMAKE_PREFIX_PATH="$work/prefix"
cmake --build "$work/installed" -j "$(nproc)"
# One CUDA runtime, the consumer's: CMake's default for CUDA targets is the static one.
link=$(link_command "$work/installed" port)
[[ $link == *cudart_static* && $link != *libcudart.so* ]] ||
  fail "port does not link the static CUDA runtime alone: $link"
[[ $("$work/installed/port" --version) == "port (microsched) $version" ]] ||
  fail "port --version does not print 'port (microsched) $version'"

echo "== consumer with CMAKE_{CXX,CUDA}_STANDARD_REQUIRED, COMPONENTS and the shared CUDA runtime"
src=$(project_folder strict)
configure_project strict "$src" -DCMAKE_PREFIX_PATH="$work/prefix"
cmake --build "$work/strict" -j "$(nproc)"
for program in port version; do
  link=$(link_command "$work/strict" $program)
  [[ $link == *libcudart.so* && $link != *cudart_static* ]] ||
    fail "$program does not link the shared CUDA runtime alone: $link"
done
if ninja -C "$work/strict" -t commands port | grep -e '-std=c++17'; then
  fail "port.cu is compiled with -std=c++17 as well as -std=c++20"
fi
"$work/strict/version" | grep -qx "microsched $version" || fail "version does not print $version"

echo "== find_package with a component the package lacks fails"
if cmake -S "$here/missing_component" -B "$work/missing_component" \
  -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/missing_component.log" 2>&1; then
  fail "find_package(microsched COMPONENTS no_such_library) succeeded"
fi
grep -q no_such_library "$work/missing_component.log" ||
  fail "the failed find_package does not name the missing component"

echo "== the scheduler alone: every area switched off, installed, the find_package project built"
areas_off=()
for area in REMAP PIPELINE SWEEP SWITCHING MODEL MULTI_GPU; do
  areas_off+=("-DMICROSCHED_WITH_$area=OFF")
done
cmake -S "$root" -B "$work/core-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="$archs" -DMICROSCHED_BUILD_TESTS=OFF -DMICROSCHED_BUILD_SAMPLES=OFF \
  -DMICROSCHED_BUILD_BENCH=OFF "${areas_off[@]}" >"$work/core-build.log"
cmake --build "$work/core-build" -j "$(nproc)" >>"$work/core-build.log"
cmake --install "$work/core-build" --prefix "$work/core-prefix" >>"$work/core-build.log"
test ! -e "$work/core-prefix/include/microsched/pipeline" ||
  fail "a switched-off area's headers were installed"
configure_project core "$(project_folder installed)" -DCMAKE_PREFIX_PATH="$work/core-prefix"
cmake --build "$work/core" -j "$(nproc)"

echo "== consumer with add_subdirectory"
src=$(project_folder subdirectory)
ln -s "$root" "$src/microsched"
configure_project subdirectory "$src"
cmake --build "$work/subdirectory" -j "$(nproc)"
# As a subproject only the libraries are targets: no samples, benchmarks, tests or workloads.
if ninja -C "$work/subdirectory" -t targets all | grep -E '^(julia|bench_[a-z]+|test_[a-z_]+|sweep|microsched_workloads)[:.]'; then
  fail "the subproject build has programs or workloads among its targets"
fi
# What it writes into the consumer's cache: its options and what its find_package and
# find_program calls found (docs/use-in-your-project.md lists them), nothing else.
unexpected=$(grep -E '^[A-Za-z_][A-Za-z0-9_]*:[A-Z]+=' "$work/subdirectory/CMakeCache.txt" |
  cut -d: -f1 | grep -vE '^(CMAKE_|my_kernels_|microsched_|MICROSCHED_|CUDAToolkit_|CUDA_|nlohmann_json_DIR$|FIND_PACKAGE_MESSAGE_DETAILS_|_)' || true)
[[ -z $unexpected ]] || fail "the subproject writes unexpected cache entries: $unexpected"

echo "== consumer with FetchContent, C++20 required"
src=$(project_folder fetchcontent)
configure_project fetchcontent "$src" -DMICROSCHED_GIT="$root"
cmake --build "$work/fetchcontent" -j "$(nproc)" --target port

echo "== plain nvcc"
"$here/nvcc_build.sh" "$work/prefix" "$work/nvcc"
# Without -std=c++20 (nvcc's default is C++17) the first error says what to do.
if nvcc -I"$work/prefix/include" -c "$here/src/port.cu" -o "$work/nvcc/no-std.o" \
  2>"$work/nvcc/no-std.log"; then
  fail "port.cu compiled without -std=c++20"
fi
grep -m 1 error "$work/nvcc/no-std.log" | grep -q 'microsched needs C++20: compile with -std=c++20' ||
  fail "nvcc without -std=c++20 does not stop at microsched's message: $(head -n 3 "$work/nvcc/no-std.log")"

status=0
for program in installed/port installed/remap strict/port subdirectory/port subdirectory/remap \
  fetchcontent/port nvcc/port; do
  rc=0
  "$work/$program" || rc=$?
  case $rc in
    0) echo "PASS $program" ;;
    77) echo "SKIPPED $program (no GPU)" ;;
    *) echo "FAIL $program (exit $rc)"; status=1 ;;
  esac
done
exit $status
