# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sweep area GPU check. Sourced by scripts/gpu-check with BUILD (build dir) and OUT set.
# Runs a small real parameter sweep of the julia workload (two scenarios, the three strategies,
# chunk and deferral ranges) and writes its journal, CSV, JSON, summary, heat maps, speedup
# plots and a tuning file under $OUT/sweep. Fails (non-zero) when the sweep program is missing
# or the sweep fails, e.g. a point fails its exactly-once check.

sweep_check() {
  local out="$OUT/sweep" sweep="$BUILD/tools/sweep/sweep" rc
  mkdir -p "$out"
  if [[ ! -x "$sweep" ]]; then
    echo "sweep: $sweep not built" | tee "$out/summary.txt"
    return 1
  fi
  "$sweep" julia offset=0,1,2 strategy=local,private_pools,hybrid chunk=1:4096:x4 deferral=1:64:x4 \
    fetch=any --out "$out" --overwrite --save-tuning "$out/tuning.txt" --quiet \
    >"$out/stdout.txt" 2>"$out/stderr.txt"
  rc=$?
  cat "$out/stdout.txt" "$out/stderr.txt"
  return "$rc"
}

sweep_check
