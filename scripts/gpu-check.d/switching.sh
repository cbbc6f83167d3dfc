# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Switching area GPU check. Sourced by scripts/gpu-check with BUILD (build dir) and OUT
# set. Runs the raycast and montecarlo_branch samples with --verify (raycast.png under
# $OUT/switching), compute-sanitizer on the switching device tests with the small cases, and
# bench_switching into $OUT/switching/bench_switching.json. Never aborts the caller; returns
# non-zero when a step fails.

switching_check() {
  local out="$OUT/switching" rc=0 tool t
  mkdir -p "$out"
  local raycast="$BUILD/samples/switching/raycast" mc="$BUILD/samples/switching/montecarlo_branch"
  local bench="$BUILD/bench/switching/bench_switching"
  if [[ -x "$raycast" ]]; then
    # At step 0.0125, the finest of frey2012's sweep (the most divergent): the default (automatic
    # switching, every form verified); then fixed switching settings: empty-space skipping, chunk
    # 4, fifo, expensive tiles first.
    local -a finest=(--step 0.0125)
    "$raycast" "${finest[@]}" --verify --output "$out/raycast.png" >"$out/raycast.log" 2>&1 || rc=1
    "$raycast" "${finest[@]}" --verify --strategy hybrid --profile --output "" >>"$out/raycast.log" 2>&1 || rc=1
    "$raycast" "${finest[@]}" --verify --strategy hybrid --lifo --no-center-first --chunk 32 --output "" >>"$out/raycast.log" 2>&1 || rc=1
    "$raycast" "${finest[@]}" --verify --strategy hybrid --no-skip-empty --window 32 --output "" >>"$out/raycast.log" 2>&1 || rc=1
    "$raycast" "${finest[@]}" --verify --strategy hybrid --switch-every 2 --output "" >>"$out/raycast.log" 2>&1 || rc=1
    "$raycast" "${finest[@]}" --verify --strategy hybrid --tile 8x4 --contexts 64 --output "" \
      >>"$out/raycast.log" 2>&1 || rc=1
    "$raycast" "${finest[@]}" --verify --width 2048 --height 2048 --output "" >>"$out/raycast.log" 2>&1 || rc=1
    cat "$out/raycast.log"
  fi
  if [[ -x "$mc" ]]; then
    "$mc" --p 0.01 --verify >"$out/montecarlo_branch.log" 2>&1 || rc=1
    "$mc" --p 0.9 --verify >>"$out/montecarlo_branch.log" 2>&1 || rc=1
    "$mc" --p 0.01 --strategy hybrid --blocks-per-sm 4 --verify >>"$out/montecarlo_branch.log" 2>&1 || rc=1
    cat "$out/montecarlo_branch.log"
  fi
  if [[ "${SWITCHING_SANITIZE:-1}" == 1 ]] && command -v compute-sanitizer >/dev/null 2>&1; then
    for t in "$BUILD/tests/switching/test_switching_device" "$BUILD/tests/switching/test_switching_porting_guide" \
        "$BUILD/tests/switching/test_switching_automatic"; do
      [[ -x "$t" ]] || continue
      for tool in memcheck racecheck synccheck; do
        if MICROSCHED_SANITIZE_SMALL=1 compute-sanitizer --tool "$tool" --error-exitcode 99 "$t" \
            >"$out/sanitize-$tool-$(basename "$t").log" 2>&1; then
          echo "switching: $tool $(basename "$t") clean"
        else
          echo "switching: $tool $(basename "$t") FAILED"; tail -n 20 "$out/sanitize-$tool-$(basename "$t").log"; rc=1
        fi
      done
    done
  fi
  if [[ -x "$bench" && "${SWITCHING_BENCH:-1}" == 1 ]]; then
    "$bench" --benchmark_filter="${SWITCHING_BENCH_FILTER:-.}" --benchmark_out="$out/bench_switching.json" --benchmark_out_format=json \
      --benchmark_counters_tabular=true >"$out/bench_switching.log" 2>&1 || rc=1
    cat "$out/bench_switching.log"
  fi
  return $rc
}

switching_check
