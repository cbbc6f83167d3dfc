# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Remap area GPU check. Sourced by scripts/gpu-check with BUILD (build dir) and OUT set.
# Cross-checks the in-kernel control-flow-efficiency counters against ncu's average active threads
# per executed instruction (smsp__thread_inst_executed_per_inst_executed.ratio / 32) on the
# micro-benchmark kernel, original and remapped. Writes $OUT/remap/ncu-crosscheck.txt.
# Needs: $BUILD/samples/remap/remap_micro. Never aborts the caller.

remap_check_ncu() {
  local out="$OUT/remap" sample="$BUILD/samples/remap/remap_micro" summary cfg paths variant dist log
  local counters ratio
  mkdir -p "$out"
  summary="$out/ncu-crosscheck.txt"
  if [[ ! -x "$sample" ]]; then
    echo "remap: $sample not built; ncu cross-check skipped" | tee "$summary"
    return 0
  fi
  if ! command -v ncu >/dev/null 2>&1; then
    echo "remap: ncu not found; ncu cross-check skipped" | tee "$summary"
    return 0
  fi
  printf '%-6s %-9s %-9s %14s %14s %10s %10s\n' paths variant dist cfe_counters ncu_ratio/32 \
    ncu_ratio diff >"$summary"
  for cfg in "2 original iid" "4 original iid" "8 original iid" "2 hot balanced" "2 hot iid" \
             "4 dgi balanced" "4 dgi iid"; do
    read -r paths variant dist <<<"$cfg"
    log="$out/ncu-p$paths-$variant-$dist"
    # launch 0 counts (instrumented kernel), launch 1 is the plain kernel that ncu profiles
    ncu --csv --kernel-name regex:micro_branch_kernel --launch-skip 1 --launch-count 1 \
      --metrics smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,smsp__thread_inst_executed.sum \
      "$sample" --profile-once --paths "$paths" --variant "$variant" --distribution "$dist" \
      --work 256 -n 1048576 >"$log.csv" 2>"$log.err" || true
    counters=$(grep -o 'cfe_counters=[0-9.]*' "$log.csv" | tail -1 | cut -d= -f2)
    ratio=$(awk -F'","' '/smsp__thread_inst_executed_per_inst_executed.ratio/ {
              v = $NF; gsub(/[",]/, "", v); print v }' "$log.csv" | tail -1)
    if [[ -z "$counters" || -z "$ratio" ]]; then
      printf '%-6s %-9s %-9s %s\n' "$paths" "$variant" "$dist" \
        "FAILED (see $(basename "$log").err: $(head -c 200 "$log.err" | tr '\n' ' '))" >>"$summary"
      continue
    fi
    awk -v p="$paths" -v v="$variant" -v d="$dist" -v c="$counters" -v r="$ratio" 'BEGIN {
      printf "%-6s %-9s %-9s %14.4f %14.4f %10.3f %+10.4f\n", p, v, d, c, r / 32, r, r / 32 - c }' \
      >>"$summary"
  done
  cat "$summary"
}

remap_check_ncu
