# Pipeline area (issue 5), sourced by scripts/gpu-check with BUILD (a configured, built tree) and
# OUT (where logs go). Runs the device tests, compute-sanitizer memcheck on them, the benchmark,
# and ncu's global-load sector counts for unwrap's original and reordered kernels.
pipeline_out="${OUT}/pipeline"
mkdir -p "${pipeline_out}"
pipeline_bin_test="${BUILD}/tests/pipeline/test_pipeline_device"
pipeline_bin_bench="${BUILD}/bench/pipeline/bench_pipeline"

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
