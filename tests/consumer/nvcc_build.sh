#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The consumer's port.cu built with one plain nvcc line against an installed microsched.
# Usage: tests/consumer/nvcc_build.sh PREFIX FOLDER   (writes FOLDER/port; NVCC_APPEND_FLAGS
# adds or overrides flags, e.g. NVCC_APPEND_FLAGS=-arch=sm_80)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PREFIX=$(cd "${1:?usage: nvcc_build.sh PREFIX FOLDER}" && pwd)
mkdir -p "${2:?usage: nvcc_build.sh PREFIX FOLDER}"
cd "$2"
cp "$here/src/port.cu" .
# example-begin nvcc-line
nvcc -std=c++20 -arch=sm_90 -O3 -I"$PREFIX/include" port.cu -L"$PREFIX/lib" -lmicrosched -o port
# example-end nvcc-line
