#!/usr/bin/env bash
# One device call for the ray caster: build, the switching tests, the bench rows
# named by RC_FILTER and the sample with --verify; logs in $OUT/rc, packed as $OUT/rc-logs.tgz.
#   OUT=out RC_FILTER='raycast_hessian/' RC_TESTS=1 RC_SANITIZE=1 bash bench/switching/gpu_raycast.sh
# RC_SAMPLES: space-separated sample argument lists, commas for spaces; RC_BENCH_LIMIT and
# RC_SANITIZE_LIMIT: seconds for the bench and for each sanitizer run.
set -u
B=${BUILD:-build-gpu-sw}
L="${RC_LOGDIR:-$OUT/rc}"  # RC_LOGDIR outside $OUT: only the packed logs come back
mkdir -p "$L"
pack() { tar czf "$OUT/rc-logs.tgz" -C "$(dirname "$L")" "$(basename "$L")"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$L/gpu.txt"
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMICROSCHED_WITH_REMAP=OFF \
  -DMICROSCHED_WITH_PIPELINE=OFF -DMICROSCHED_WITH_SWEEP=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
  >"$L/configure.log" 2>&1 || tail -20 "$L/configure.log"
targets="raycast bench_switching"
[[ "${RC_TESTS:-0}" == 1 ]] && targets="$targets test_switching_vote test_switching_device test_switching_porting_guide"
SECONDS=0
cmake --build "$B" -j 16 --target $targets >"$L/build.log" 2>&1 || tail -40 "$L/build.log"
echo "build: ${SECONDS}s"
# Per raycast kernel: the mangled name (switching_kernel<..., MinBlocksPerSM> last) and REG/STACK.
cuobjdump -res-usage "$B/bench/switching/bench_switching" 2>/dev/null | grep -A1 "Function.*raycast" | grep -v "^--" |
  paste - - | sed -E 's/^[[:space:]]*Function ([^:]*):[[:space:]]*(REG:[0-9]+ STACK:[0-9]+ SHARED:[0-9]+ LOCAL:[0-9]+).*/\2 \1/' >"$L/resources.txt"
if [[ "${RC_TESTS:-0}" == 1 ]]; then
  SECONDS=0
  ctest --test-dir "$B" -R switching --output-on-failure >"$L/ctest.log" 2>&1
  tail -6 "$L/ctest.log"
  echo "ctest: ${SECONDS}s"
fi
SECONDS=0
if [[ -n "${RC_FILTER:-}" ]]; then
  timeout "${RC_BENCH_LIMIT:-200}" "$B/bench/switching/bench_switching" --benchmark_filter="$RC_FILTER" \
    --benchmark_out="$L/bench.json" --benchmark_out_format=json --benchmark_counters_tabular=true \
    >"$L/bench.log" 2>&1
  echo "bench: rc $? ${SECONDS}s"
  pack
fi
R="$B/samples/switching/raycast"
for args in ${RC_SAMPLES:-"--step=0.0125"}; do
  echo "== raycast --verify ${args//,/ }" >>"$L/raycast.log"
  timeout 60 "$R" --verify ${args//,/ } --output "$L/raycast.png" >>"$L/raycast.log" 2>&1
  echo "rc $?" >>"$L/raycast.log"
done
grep -E "^==|vanilla|termination|switching|verify|kernel:|^rc" "$L/raycast.log"
pack
if [[ "${RC_SANITIZE:-0}" == 1 ]]; then
  SECONDS=0
  for t in "$B/tests/switching/test_switching_device" "$B/tests/switching/test_switching_porting_guide"; do
    for tool in memcheck racecheck synccheck; do
      MICROSCHED_SANITIZE_SMALL=1 timeout "${RC_SANITIZE_LIMIT:-75}" compute-sanitizer --tool $tool --error-exitcode 99 "$t" \
        >"$L/sanitize-$tool-$(basename "$t").log" 2>&1
      echo "sanitize $tool $(basename "$t"): rc $? ${SECONDS}s"
      tail -2 "$L/sanitize-$tool-$(basename "$t").log"
    done
  done
fi
pack
cp "$L/raycast.png" "$OUT/" 2>/dev/null
true
