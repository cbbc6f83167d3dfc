# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Model area GPU check (issue 15). Sourced by scripts/gpu-check with BUILD (build dir) and OUT.
# Runs the device tests, the benchmark (JSON), the plot and table of predicted against measured
# time ratios, then the device tests under compute-sanitizer (memcheck, racecheck, synccheck;
# SANITIZER_TIMEOUT seconds each, default 300). Never aborts the caller.
model_out="$OUT/model"
mkdir -p "$model_out"
model_test="$BUILD/tests/model/test_model_device"
model_bench="$BUILD/bench/model/bench_model"
if [[ -x "$model_test" ]]; then
  "$model_test" > "$model_out/test_model_device.log" 2>&1
  echo "model: device tests rc=$?" | tee -a "$model_out/summary.txt"
fi
if [[ -x "$model_bench" ]]; then
  MICROSCHED_MODEL_CACHE="$model_out/latency-cache" "$model_bench" \
    --benchmark_out="$model_out/bench_model.json" --benchmark_out_format=json \
    > "$model_out/bench_model.txt" 2>&1
  echo "model: bench rc=$?" | tee -a "$model_out/summary.txt"
  python3 bench/model/plot_model.py "$model_out/bench_model.json" \
    --png "$model_out/model-accuracy.png" --table "$model_out/model-table.md" \
    >> "$model_out/summary.txt" 2>&1
  echo "model: plot rc=$?" | tee -a "$model_out/summary.txt"
fi
if [[ -x "$model_test" ]] && command -v compute-sanitizer > /dev/null; then
  for tool in memcheck racecheck synccheck; do
    timeout "${SANITIZER_TIMEOUT:-300}" compute-sanitizer --tool "$tool" --error-exitcode 9 \
      "$model_test" > "$model_out/$tool.log" 2>&1
    echo "model: $tool rc=$?" | tee -a "$model_out/summary.txt"
  done
fi
