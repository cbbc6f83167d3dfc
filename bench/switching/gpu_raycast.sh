#!/usr/bin/env bash
# One device session for the ray caster (issue 3): build, the switching tests, the bench rows
# named by RC_FILTER and the sample with --verify; logs in $OUT/rc, packed as $OUT/rc-logs.tgz.
#   OUT=out RC_FILTER='raycast_hessian/' RC_TESTS=1 RC_SANITIZE=1 bash bench/switching/gpu_raycast.sh
set -u
B=${BUILD:-build-gpu-sw}
L="$OUT/rc"
mkdir -p "$L"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$L/gpu.txt"
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMICROSCHED_WITH_REMAP=OFF \
  -DMICROSCHED_WITH_PIPELINE=OFF -DMICROSCHED_WITH_SWEEP=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
  >"$L/configure.log" 2>&1 || tail -20 "$L/configure.log"
targets="raycast bench_switching"
[[ "${RC_TESTS:-0}" == 1 ]] && targets="$targets test_switching_vote test_switching_device test_switching_porting_guide"
SECONDS=0
cmake --build "$B" -j 16 --target $targets >"$L/build.log" 2>&1 || tail -40 "$L/build.log"
echo "build: ${SECONDS}s"
cuobjdump -res-usage "$B/bench/switching/bench_switching" 2>/dev/null | grep -A1 raycast | grep -o "REG:[0-9]* STACK:[0-9]* SHARED:[0-9]*" | sort | uniq -c >"$L/resources.txt"
if [[ "${RC_TESTS:-0}" == 1 ]]; then
  ctest --test-dir "$B" -R switching --output-on-failure >"$L/ctest.log" 2>&1
  tail -6 "$L/ctest.log"
fi
SECONDS=0
if [[ -n "${RC_FILTER:-}" ]]; then
  timeout "${RC_BENCH_LIMIT:-200}" "$B/bench/switching/bench_switching" --benchmark_filter="$RC_FILTER" \
    --benchmark_out="$L/bench.json" --benchmark_out_format=json --benchmark_counters_tabular=true \
    >"$L/bench.log" 2>&1
  echo "bench: rc $? ${SECONDS}s"
fi
R="$B/samples/switching/raycast"
for args in ${RC_SAMPLES:-"--step=0.0125"}; do
  echo "== raycast --verify ${args//,/ }" >>"$L/raycast.log"
  timeout 60 "$R" --verify ${args//,/ } --output "$L/raycast.png" >>"$L/raycast.log" 2>&1
  echo "rc $?" >>"$L/raycast.log"
done
grep -E "^==|vanilla|termination|switching  |verify:|^rc" "$L/raycast.log"
if [[ "${RC_SANITIZE:-0}" == 1 ]]; then
  for t in "$B/tests/switching/test_switching_device" "$B/tests/switching/test_switching_porting_guide"; do
    for tool in memcheck racecheck synccheck; do
      MICROSCHED_SANITIZE_SMALL=1 timeout 75 compute-sanitizer --tool $tool --error-exitcode 99 "$t" \
        >"$L/sanitize-$tool-$(basename "$t").log" 2>&1
      echo "sanitize $tool $(basename "$t"): rc $?"
      tail -2 "$L/sanitize-$tool-$(basename "$t").log"
    done
  done
fi
tar czf "$OUT/rc-logs.tgz" -C "$OUT" rc
cp "$L/raycast.png" "$OUT/" 2>/dev/null
true
