#!/usr/bin/env bash
# One device call for the ray caster on binaries built elsewhere (same CUDA, sm_90), so that
# no device time goes into compiling. $D holds raycast, bench_switching, the three switching test
# binaries, montecarlo_branch and lib/ (shared libraries the device may lack: benchmark, png, z, cudart).
#   cmake --build build-switching --target raycast bench_switching test_switching_vote \
#     test_switching_device test_switching_porting_guide && bash bench/switching/pack_prebuilt.sh
#   OUT=out PB_TESTS=1 PB_FILTER='raycast_q/' PB_SAMPLES='--step=0.0125 ...' PB_NCU=1 \
#     PB_SANITIZE=1 bash bench/switching/gpu_prebuilt.sh
# PB_SAMPLES: space-separated raycast argument lists, commas for spaces (each run with --verify
# and --output ""); PB_MC: the same for montecarlo_branch. PB_NCU: Nsight Compute on the switching kernel of the default sample and on
# vanilla at window 64 in 8x4 tiles. Logs in $PB_LOGDIR (default /tmp/pb), packed as
# $OUT/pb-logs.tgz.
set -u
D=${D:-build-devbin}
L=${PB_LOGDIR:-/tmp/pb}
mkdir -p "$L"
[[ -f "$D/devbin.tgz" ]] && tar xzf "$D/devbin.tgz" -C "$D"  # pack_prebuilt.sh's archive
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$PWD/$D/lib
pack() { tar czf "$OUT/pb-logs.tgz" -C "$(dirname "$L")" "$(basename "$L")"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$L/gpu.txt"
git log -1 --format='commit %h %s' 2>/dev/null | tee "$L/commit.txt"
if [[ "${PB_TESTS:-0}" == 1 ]]; then
  for t in test_switching_vote test_switching_device test_switching_porting_guide; do
    SECONDS=0
    timeout 150 "$D/$t" >"$L/test-$t.log" 2>&1
    echo "$t: rc $? ${SECONDS}s $(tail -1 "$L/test-$t.log")"
  done
fi
if [[ -n "${PB_FILTER:-}" ]]; then
  SECONDS=0
  timeout "${PB_BENCH_LIMIT:-200}" "$D/bench_switching" --benchmark_filter="$PB_FILTER" \
    --benchmark_out="$L/bench.json" --benchmark_out_format=json --benchmark_counters_tabular=true \
    >"$L/bench.log" 2>&1
  echo "bench: rc $? ${SECONDS}s"
  pack
fi
for args in ${PB_SAMPLES:-}; do
  echo "== raycast --verify ${args//,/ }" >>"$L/raycast.log"
  timeout 90 "$D/raycast" --verify ${args//,/ } --output "" >>"$L/raycast.log" 2>&1
  echo "rc $?" >>"$L/raycast.log"
done
for args in ${PB_MC:-}; do
  echo "== montecarlo_branch --verify ${args//,/ }" >>"$L/montecarlo_branch.log"
  timeout 60 "$D/montecarlo_branch" --verify ${args//,/ } >>"$L/montecarlo_branch.log" 2>&1
  echo "rc $?" >>"$L/montecarlo_branch.log"
done
[[ -f "$L/montecarlo_branch.log" ]] && cat "$L/montecarlo_branch.log"
[[ -f "$L/raycast.log" ]] && grep -E "^==|vanilla|termination|switching|verify|kernel:|profile|visits|^rc" "$L/raycast.log"
pack
if [[ "${PB_NCU:-0}" == 1 ]]; then
  NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  sections="--section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section InstructionStats --section LaunchStats"
  metrics="smsp__thread_inst_executed_per_inst_executed.ratio,smsp__thread_inst_executed.sum,\
smsp__inst_executed.sum,smsp__thread_inst_executed_pred_on.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,\
smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_pipe_xu.sum,\
smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum"
  SECONDS=0
  # The default sample: launch 0 of the switching kernel is the warm-up.
  timeout 150 "$NCU" -k regex:switching_kernel --launch-skip 1 --launch-count 1 $sections \
    --section SourceCounters --metrics "$metrics" "$D/raycast" --repetitions 1 --output "" \
    ${PB_NCU_ARGS:-} >"$L/ncu-switching.log" 2>&1
  echo "ncu switching: rc $? ${SECONDS}s"
  # Vanilla, 8x4 tiles: launches 0-1 are window 1, 2-3 window 64 (warm-up, timed).
  timeout 100 "$NCU" -k regex:vanilla_kernel --launch-skip 3 --launch-count 1 $sections \
    --metrics "$metrics" "$D/raycast" --repetitions 1 --output "" --tile 8x4 --vanilla-window 64 \
    >"$L/ncu-vanilla.log" 2>&1
  echo "ncu vanilla: rc $? ${SECONDS}s"
  pack
fi
if [[ "${PB_SANITIZE:-0}" == 1 ]]; then
  SECONDS=0
  for t in test_switching_device test_switching_porting_guide; do
    for tool in memcheck racecheck synccheck; do
      MICROSCHED_SANITIZE_SMALL=1 timeout "${PB_SANITIZE_LIMIT:-75}" compute-sanitizer --tool $tool \
        --error-exitcode 99 "$D/$t" >"$L/sanitize-$tool-$t.log" 2>&1
      echo "sanitize $tool $t: rc $? ${SECONDS}s $(tail -1 "$L/sanitize-$tool-$t.log")"
    done
  done
fi
pack
true
