#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the two consumer projects the way a user's own project would use microsched, and runs
# their programs where a GPU answers:
#   installed/     find_package(microsched) against a fresh `cmake --install` of BUILD
#   subdirectory/  add_subdirectory(<this checkout>): only the libraries build
#   nvcc_build.sh  one plain nvcc line against the same install
# Usage: tests/consumer/run.sh BUILD [WORK]   BUILD: a configured and built microsched build folder;
# WORK: scratch folder (default BUILD/consumer). A program that finds no GPU exits 77 and is
# reported as skipped; any other failure fails the script.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: tests/consumer/run.sh BUILD [WORK]}
build=$(cd "$build" && pwd)  # absolute: CMake reads a relative CMAKE_PREFIX_PATH from elsewhere
work=${2:-$build/consumer}
archs=${CMAKE_CUDA_ARCHITECTURES:-90}
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)

echo "== cmake --install $build --prefix $work/prefix"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
test -f "$work/prefix/lib/cmake/microsched/microschedConfig.cmake"
test -f "$work/prefix/lib/cmake/microsched/microschedConfigVersion.cmake"

echo "== consumer with find_package"
cmake -S "$here/installed" -B "$work/installed" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CUDA_ARCHITECTURES="$archs" >"$work/installed.log"
cmake --build "$work/installed" -j "$(nproc)"

echo "== consumer with add_subdirectory"
cmake -S "$here/subdirectory" -B "$work/subdirectory" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMICROSCHED_SOURCE_DIR="$here/../.." -DCMAKE_CUDA_ARCHITECTURES="$archs" >"$work/subdirectory.log"
cmake --build "$work/subdirectory" -j "$(nproc)"
# As a subproject only the libraries are targets: no samples, benchmarks, tests or workloads.
if ninja -C "$work/subdirectory" -t targets all | grep -E '^(julia|bench_[a-z]+|test_[a-z_]+|sweep|microsched_workloads)[:.]'; then
  echo "error: the subproject build has programs or workloads among its targets" >&2
  exit 1
fi

echo "== plain nvcc"
"$here/nvcc_build.sh" "$work/prefix" "$work/nvcc"

status=0
for program in installed/port installed/remap subdirectory/port subdirectory/remap nvcc/port; do
  rc=0
  "$work/$program" || rc=$?
  case $rc in
    0) echo "PASS $program" ;;
    77) echo "SKIPPED $program (no GPU)" ;;
    *) echo "FAIL $program (exit $rc)"; status=1 ;;
  esac
done
exit $status
