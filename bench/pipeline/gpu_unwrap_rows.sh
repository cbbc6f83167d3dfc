#!/usr/bin/env bash
# One device call for the pipeline rows (results-pipeline.md run 16 on): configure and build the
# pipeline targets in bpg, run the device test, then the unwrap / Black-Scholes / gafort rows with
# two repetitions. Writes everything under $OUT; prints the rows and the per-row run summaries.
# Usage: OUT=dir [FILTER=regex] bash bench/pipeline/gpu_unwrap_rows.sh
set -u
: "${OUT:?set OUT}"
FILTER="${FILTER:-bm_unwrap/|bm_unwrap_gather/(15|14|12)/1/1|bm_blackscholes/0/0|bm_gafort/3/5}"

cmake -S . -B bpg -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMICROSCHED_WITH_SWITCHING=OFF -DMICROSCHED_WITH_REMAP=OFF -DMICROSCHED_WITH_SWEEP=OFF > $OUT/cfg.txt 2>&1 || exit 1
cmake --build bpg -j16 --target bench_pipeline test_pipeline_device > $OUT/build.txt 2>&1 || { tail -50 $OUT/build.txt; exit 1; }
bpg/tests/pipeline/test_pipeline_device > $OUT/devtest.txt 2>&1; echo devtest rc $?; tail -3 $OUT/devtest.txt
nproc; lscpu | grep -E "Model name|L3|NUMA"
bpg/bench/pipeline/bench_pipeline --benchmark_filter="$FILTER" --benchmark_repetitions=2 --benchmark_out=$OUT/bench.json --benchmark_out_format=json > $OUT/bench.txt 2> $OUT/bench_err.txt; echo bench rc $?
grep -E "^bm_" $OUT/bench.txt | grep -v "_mean\|_median\|_stddev\|_cv" | sed -E 's/ +/ /g' | cut -c1-260
grep -E "^== |^warm-up runs|^runs|^all runs" $OUT/bench_err.txt | cut -c1-400
