# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Pipeline area, sourced by scripts/gpu-check with BUILD (a configured, built tree) and OUT (where
# logs go). Runs the device tests, compute-sanitizer memcheck on them, the benchmark (one line per
# row from bench/pipeline/summarise.py), and ncu's global-load sector counts for unwrap's original
# and reordered kernels.
# PIPELINE_LOAD="cpu:N" or "mem:N": the end-to-end rows once more while bench/pipeline/host_load
# takes N cores (spinning) or DRAM bandwidth (N threads copying 64 MB buffers).
pipeline_out="${OUT}/pipeline"
mkdir -p "${pipeline_out}"
pipeline_bin_test="${BUILD}/tests/pipeline/test_pipeline_device"
pipeline_bin_bench="${BUILD}/bench/pipeline/bench_pipeline"
pipeline_bin_load="${BUILD}/bench/pipeline/host_load"
pipeline_summarise="$(dirname "${BASH_SOURCE[0]}")/../../bench/pipeline/summarise.py"

if [[ -x "${pipeline_bin_test}" ]]; then
  "${pipeline_bin_test}" > "${pipeline_out}/test_pipeline_device.log" 2>&1
  echo "pipeline: device tests rc=$?" | tee -a "${pipeline_out}/summary.txt"
  if command -v compute-sanitizer > /dev/null; then
    compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "${pipeline_bin_test}" \
      > "${pipeline_out}/memcheck.log" 2>&1
    echo "pipeline: memcheck rc=$?" | tee -a "${pipeline_out}/summary.txt"
  fi
fi

if [[ -x "${pipeline_bin_bench}" ]]; then
  "${pipeline_bin_bench}" --benchmark_out="${pipeline_out}/bench_pipeline.json" \
    --benchmark_out_format=json > "${pipeline_out}/bench_pipeline.txt" 2> "${pipeline_out}/bench_pipeline.stats.txt"
  echo "pipeline: bench rc=$?" | tee -a "${pipeline_out}/summary.txt"
  python3 "${pipeline_summarise}" "${pipeline_out}/bench_pipeline.json" | tee -a "${pipeline_out}/summary.txt"
  if [[ -n "${PIPELINE_LOAD:-}" && -x "${pipeline_bin_load}" ]]; then
    "${pipeline_bin_load}" --mode "${PIPELINE_LOAD%%:*}" --threads "${PIPELINE_LOAD##*:}" --seconds 600 \
      2> "${pipeline_out}/host_load.txt" &
    pipeline_load_pid=$!
    sleep 1
    "${pipeline_bin_bench}" --benchmark_filter='bm_(unwrap|gafort|blackscholes)/' \
      --benchmark_out="${pipeline_out}/bench_pipeline_loaded.json" --benchmark_out_format=json \
      > "${pipeline_out}/bench_pipeline_loaded.txt" 2> "${pipeline_out}/bench_pipeline_loaded.stats.txt"
    echo "pipeline: bench under ${PIPELINE_LOAD} rc=$?" | tee -a "${pipeline_out}/summary.txt"
    kill "${pipeline_load_pid}"
    wait "${pipeline_load_pid}" 2> /dev/null
    python3 "${pipeline_summarise}" "${pipeline_out}/bench_pipeline_loaded.json" | tee -a "${pipeline_out}/summary.txt"
  fi
  if command -v ncu > /dev/null; then
    for kernel in unwrap_original unwrap_reordered_full; do
      ncu --kernel-name "${kernel}" --launch-skip 3 --launch-count 1 \
        --metrics l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,dram__bytes_read.sum,gpu__time_duration.sum \
        "${pipeline_bin_bench}" --benchmark_filter=bm_unwrap_kernels > "${pipeline_out}/ncu_${kernel}.txt" 2>&1
      echo "pipeline: ncu ${kernel} rc=$?" | tee -a "${pipeline_out}/summary.txt"
      grep -E "sectors|requests|bytes_read|duration" "${pipeline_out}/ncu_${kernel}.txt" | tee -a "${pipeline_out}/summary.txt"
    done
  fi
fi
