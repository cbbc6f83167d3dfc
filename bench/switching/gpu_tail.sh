#!/usr/bin/env bash
# One device call for the tail code (sharing, divergent tail) on binaries built
# elsewhere (bench/switching/pack_prebuilt.sh; carry build-devbin): the device tests, the ray
# caster at 512^2 and 2048^2 with the tail code off and on (divergent tail, sharing per block and
# per SM), the Monte Carlo branch test at p = 0.01 (sample and bench rows), then racecheck,
# synccheck and memcheck on the tail tests. Logs in $OUT/tail/.
set -u
D=${D:-build-devbin}
L=$OUT/tail
mkdir -p "$L"
[[ -f "$D/devbin.tgz" ]] && tar xzf "$D/devbin.tgz" -C "$D"  # pack_prebuilt.sh's archive
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$PWD/$D/lib
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$L/gpu.txt"
HUNG=0  # a run that timed out: skip the remaining sharing runs (a hang would eat the call's time)
for t in test_switching_vote test_switching_device test_switching_porting_guide; do
  SECONDS=0
  timeout 60 "$D/$t" >"$L/test-$t.log" 2>&1
  r=$?
  [[ $r == 124 ]] && HUNG=1
  echo "$t: rc $r ${SECONDS}s $(tail -1 "$L/test-$t.log")"
done
rc() {  # name, then the command
  local name=$1
  shift
  if [[ $HUNG == 1 && ( "$*" == *share* || "$*" == *tail* ) ]]; then echo "== $name: skipped" >>"$L/samples.log"; return; fi
  SECONDS=0
  echo "== $name: $*" >>"$L/samples.log"
  timeout 25 "$@" >>"$L/samples.log" 2>&1
  local r=$?
  [[ $r == 124 ]] && HUNG=1
  echo "rc $r ${SECONDS}s" >>"$L/samples.log"
}
ray() { rc "$1" "$D/raycast" --verify --output "" --repetitions 7 "${@:2}"; }
B="--width 2048 --height 2048 --blocks-per-sm 0 --contexts 64"
ray "512 off" --profile
ray "512 divergent tail" --tail-divergent --profile
ray "512 block 8" --share-parked 8 --profile
ray "512 divergent tail + block 8" --tail-divergent --share-parked 8 --profile
ray "512 divergent tail + sm 8" --tail-divergent --share-parked 8 --share-sm --profile
ray "512 divergent tail, window 32" --tail-divergent --window 32
ray "512 off again" --profile
ray "2048 off" $B
ray "2048 divergent tail" $B --tail-divergent
ray "2048 divergent tail + block 8" $B --tail-divergent --share-parked 8
rc "mc off" "$D/montecarlo_branch" --p 0.01 --verify
rc "mc divergent tail" "$D/montecarlo_branch" --p 0.01 --verify --tail-divergent
grep -E "^==|vanilla|switching|verify|kernel:|profile|visits|^rc|rror" "$L/samples.log"
SECONDS=0
timeout 40 "$D/bench_switching" --benchmark_filter='mc_branch/(vanilla|microsched)/p=0.01' \
  --benchmark_counters_tabular=true >"$L/bench.log" 2>&1
echo "bench: rc $? ${SECONDS}s"; grep -E "p=0.01" "$L/bench.log"
for tool in racecheck synccheck memcheck; do
  [[ $HUNG == 1 ]] && break
  SECONDS=0
  MICROSCHED_SANITIZE_SMALL=1 timeout "${TAIL_SANITIZE_LIMIT:-35}" compute-sanitizer --tool $tool \
    --error-exitcode 99 "$D/test_switching_device" -tc='*tail sharing*' >"$L/sanitize-$tool.log" 2>&1
  echo "sanitize $tool: rc $? ${SECONDS}s $(tail -1 "$L/sanitize-$tool.log")"
done
true
