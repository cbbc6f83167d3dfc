#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Turns Google Benchmark JSON from bench_termination into the Markdown table of docs/performance.md:
one line per row that compares vanilla, warp persistent threads, the default and best schedules and
the floor (rows of another shape, such as host/, and rows that failed are left out).

Usage: scripts/bench_table.py bench_termination.json
Exit status: 0 done, 2 bad usage or a file that is not bench_termination JSON (one line on stderr)."""
import os
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ behind
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchmark_json import PROG, fail, read_benchmark_json  # noqa: E402

COUNTERS = ("vanilla_ms", "persistent_ms", "default_ms", "best_ms", "floor_ms",
            "default_x_vanilla", "best_x_vanilla", "best_x_persistent", "floor_over_best",
            "vanilla_over_floor")




def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    for arg in argv[1:]:
        if arg.startswith("-"):
            fail(f"unknown option '{arg}' (see --help)")
    if len(argv) != 2:
        fail("usage: bench_table.py BENCH_TERMINATION.json (see --help)")
    path = argv[1]
    ctx, benchmarks = read_benchmark_json(path)
    rows = [b for b in benchmarks if not b.get("error_occurred")
            and all(isinstance(b.get(k), (int, float)) for k in COUNTERS)]
    if not rows:
        fail(f"'{path}' has no bench_termination comparison rows (with {', '.join(COUNTERS[:3])}, ...)")
    print(f"GPU: {ctx.get('gpu', '?')}; default schedule: {ctx.get('default_schedule', '?')}; "
          f"run {ctx.get('date', '?')}\n")
    print("| row | vanilla | warp PT | default | best | floor | default × vanilla | best × vanilla "
          "| best × PT | best / floor speed | vanilla / floor | best setting |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for b in rows:
        name = str(b.get("name", "?")).replace("/iterations:1/manual_time", "")
        best = str(b.get("label", "")).replace("best: ", "")
        print(f"| {name} | {b['vanilla_ms']:.3f} | {b['persistent_ms']:.3f} | {b['default_ms']:.3f} "
              f"| {b['best_ms']:.3f} | {b['floor_ms']:.3f} | {b['default_x_vanilla']:.2f} "
              f"| {b['best_x_vanilla']:.2f} | {b['best_x_persistent']:.2f} | {b['floor_over_best']:.2f} "
              f"| {b['vanilla_over_floor']:.2f} | {best} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
