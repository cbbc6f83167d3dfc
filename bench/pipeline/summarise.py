#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Prints one line per benchmark run of a bench_pipeline JSON file (Google Benchmark's
--benchmark_out): original and pipelined loop times, speedup (mean and median of the pairs),
optimised share, and the host gather's frame times. Usage: summarise.py bench_pipeline.json"""
import json
import sys

if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
    sys.exit(__doc__)
try:
    with open(sys.argv[1]) as f:
        data = json.load(f)
except (OSError, ValueError) as e:
    sys.exit(f"summarise.py: cannot read {sys.argv[1]}: {e}")
keys = ("original_ms", "pipelined_ms", "speedup", "speedup_median", "optimised_share",
        "frame_ms_mean", "frame_ms_median", "frame_ms_max")
for b in data.get("benchmarks", []):
    if b.get("run_type") != "iteration":
        continue
    print(b["name"], " ".join(f"{k}={b[k]:.3f}" for k in keys if k in b))
