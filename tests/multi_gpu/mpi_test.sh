#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs an MPI test for ctest: where mpiexec cannot start a process on this machine, it says why
# and exits 77 (ctest: Skipped), as a GPU test does without a GPU; else it runs RANKS ranks.
#   mpi_test.sh MPIEXEC NUMPROC_FLAG RANKS PROGRAM [ARGS...]
mpiexec=$1 flag=$2 ranks=$3
shift 3
if ! probe=$("$mpiexec" "$flag" 1 true 2>&1); then
  reason=$(printf '%s\n' "$probe" | grep -v '^[[:space:]-]*$' | head -1)
  printf 'SKIPPED: %s cannot start a process here (%s); MPI test not run\n' "$mpiexec" "$reason"
  exit 77
fi
exec "$mpiexec" "$flag" "$ranks" --oversubscribe "$@"
