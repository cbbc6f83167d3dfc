#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Prints one line per benchmark run of a bench_pipeline JSON file (Google Benchmark's
--benchmark_out): original and pipelined loop times, speedup (mean and median of the pairs),
optimised share, and the host gather's frame times. Usage: summarise.py bench_pipeline.json
Exit status: 0 done, 2 bad usage or a file that is not Google Benchmark JSON (one line on stderr)."""
import os
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ behind
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from benchmark_json import PROG, fail, positional_arguments, read_benchmark_json  # noqa: E402

KEYS = ("original_ms", "pipelined_ms", "speedup", "speedup_median", "optimised_share",
        "frame_ms_mean", "frame_ms_median", "frame_ms_max")



def main():
    (path,) = positional_arguments(1, "summarise.py BENCH_PIPELINE.json", __doc__)
    for b in read_benchmark_json(path)[1]:
        if not isinstance(b, dict) or b.get("run_type") != "iteration":
            continue
        print(b.get("name", "?"), " ".join(f"{k}={b[k]:.3f}" for k in KEYS
                                           if isinstance(b.get(k), (int, float))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
