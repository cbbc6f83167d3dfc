#!/usr/bin/env bash
# One device call for the pipeline rows (results-pipeline.md run 16 on): configure and build the
# pipeline targets in bpg, run the device test, then the unwrap / Black-Scholes / gafort rows with
# two repetitions. Writes everything under $OUT; prints the rows and the per-row run summaries.
# LOADS: host loads to run the rows under, one after the other (host_load.cpp): "none" (default),
# "cpu:N" (N spinning threads), "mem:N" (N threads copying 64 MB buffers); vmstat samples the host
# meanwhile (steal, run queue). REPS: repetitions (2).
# BENCH_ARGS: more bench_pipeline flags (e.g. --benchmark_enable_random_interleaving=true).
# Usage: OUT=dir [FILTER=regex] [BENCH_ARGS=...] [LOADS="none cpu:16 mem:8"] [REPS=2] bash bench/pipeline/gpu_unwrap_rows.sh
set -u
: "${OUT:?set OUT}"
FILTER="${FILTER:-bm_unwrap/|bm_unwrap_gather/(15|14|12)/1/1|bm_blackscholes/0/0|bm_gafort/3/5}"

cmake -S . -B bpg -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMICROSCHED_WITH_SWITCHING=OFF -DMICROSCHED_WITH_REMAP=OFF -DMICROSCHED_WITH_SWEEP=OFF > $OUT/cfg.txt 2>&1 || exit 1
cmake --build bpg -j16 --target bench_pipeline test_pipeline_device host_load > $OUT/build.txt 2>&1 || { tail -50 $OUT/build.txt; exit 1; }
bpg/tests/pipeline/test_pipeline_device > $OUT/devtest.txt 2>&1; echo devtest rc $?; tail -3 $OUT/devtest.txt
nproc; lscpu | grep -E "Model name|L3|NUMA"
for load in ${LOADS:-none}; do
  echo "=== load $load"
  tag=${load/:/-}  # file names without ':' (they would not come back from the device)
  hog=""
  if [ "$load" != none ]; then
    bpg/bench/pipeline/host_load --mode "${load%%:*}" --threads "${load##*:}" --seconds 600 2> $OUT/host_load_$tag.txt &
    hog=$!
    sleep 1
  fi
  vmstat 1 > $OUT/vmstat_$tag.txt 2>&1 &
  vm=$!
  bpg/bench/pipeline/bench_pipeline --benchmark_filter="$FILTER" --benchmark_repetitions=${REPS:-2} --benchmark_out=$OUT/bench_$tag.json --benchmark_out_format=json ${BENCH_ARGS:-} > $OUT/bench_$tag.txt 2> $OUT/bench_err_$tag.txt; echo bench rc $?
  [ -n "$vm" ] && kill $vm 2>/dev/null
  [ -n "$hog" ] && { kill $hog; wait $hog 2>/dev/null; }
  grep -E "^bm_" $OUT/bench_$tag.txt | grep -v "_mean\|_median\|_stddev\|_cv" | sed -E 's/ +/ /g' | cut -c1-260
  grep -E "^== |^warm-up runs|^runs|^all runs" $OUT/bench_err_$tag.txt | cut -c1-400
  grep -E "^worst run" $OUT/bench_err_$tag.txt | cut -c1-3000
  awk 'NR>2 {us+=$13; sy+=$14; id+=$15; st+=$17; r+=$1; n++} END {if (n) printf "vmstat %d s: run queue %.1f, us %.0f sy %.0f id %.0f st %.0f %%\n", n, r/n, us/n, sy/n, id/n, st/n}' $OUT/vmstat_$tag.txt
done
