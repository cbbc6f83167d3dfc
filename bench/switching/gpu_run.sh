#!/usr/bin/env bash
# One device call for the switching area: build, ctest, samples, bench, sanitizers.
set -u
B=build-gpu-sw
mkdir -p "$OUT/switching"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT/switching/gpu.txt"
cmake -S . -B $B -G Ninja -DMICROSCHED_WITH_REMAP=OFF -DMICROSCHED_WITH_PIPELINE=OFF -DMICROSCHED_WITH_SWEEP=OFF -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/switching/configure.log" 2>&1 || tail -20 "$OUT/switching/configure.log"
time cmake --build $B -j 16 --target test_switching_vote test_switching_device test_switching_porting_guide raycast montecarlo_branch bench_switching >"$OUT/switching/build.log" 2>&1 || tail -40 "$OUT/switching/build.log"
ctest --test-dir $B -R switching --output-on-failure >"$OUT/switching/ctest.log" 2>&1; tail -12 "$OUT/switching/ctest.log"
export BUILD=$B
SWITCHING_BENCH_FILTER=${SWITCHING_BENCH_FILTER:-.} SWITCHING_SANITIZE=0 SWITCHING_BENCH=${SWITCHING_BENCH:-1} timeout ${BENCH_LIMIT:-240} bash -c 'source scripts/gpu-check.d/switching.sh' 2>&1 | grep -v "^-----\|^Benchmark " | cut -c1-200
SWITCHING_BENCH=0 timeout ${SAN_LIMIT:-120} bash -c '
  OUT2=$OUT/switching; for t in $BUILD/tests/switching/test_switching_device $BUILD/tests/switching/test_switching_porting_guide; do
  for tool in memcheck racecheck synccheck; do
    MICROSCHED_SANITIZE_SMALL=1 compute-sanitizer --tool $tool --error-exitcode 99 $t > $OUT2/sanitize-$tool-$(basename $t).log 2>&1; echo "sanitize $tool $(basename $t): rc $?"; tail -3 $OUT2/sanitize-$tool-$(basename $t).log
  done; done'
cd "$OUT" && tar czf switching-all.tar.gz switching && cp switching/raycast.png . 2>/dev/null; ls -la "$OUT"
