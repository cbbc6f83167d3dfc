#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Markdown tables of the ray caster rows (raycast_hessian[_skip]/...) of a bench_switching JSON
file: per image size and step, vanilla at window 1 (the textbook
kernel) and at its fastest window, context switching immediate and deferred, and the speedups.

    python3 bench/switching/raycast_tables.py bench_switching.json

Exit status: 0 done, 2 bad usage or a file without such rows (one line on stderr).
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ behind
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from benchmark_json import PROG, fail, positional_arguments, read_benchmark_json  # noqa: E402





def main():
    (bench_json,) = positional_arguments(1, "raycast_tables.py BENCH_SWITCHING.json", __doc__)
    rows = {}
    for b in read_benchmark_json(bench_json)[1]:
        if b.get("error_occurred") or not isinstance(b.get("ms"), (int, float)):
            continue
        m = re.match(r"(raycast_hessian(?:_skip)?)/(\d+)/(\w+)_w(\d+)/step=([\d.]+)",
                     str(b.get("name", "")))
        if m:
            group, size, kind, window, step = m.groups()
            rows[(group, int(size), kind, int(window), float(step))] = b["ms"]
    if not rows:
        fail(f"'{sys.argv[1]}' has no raycast_hessian rows")
    switching = [("immediate", 1), ("deferred8", 1), ("immediate", 16), ("deferred2", 16)]
    for group in ("raycast_hessian", "raycast_hessian_skip"):
        for size in (512, 2048):
            steps = sorted({k[4] for k in rows if k[0] == group and k[1] == size}, reverse=True)
            if not steps:
                continue
            print(f"\n{group}, {size}x{size}\n")
            head = ["step", "vanilla w1 ms", "best vanilla ms (w)"]
            for kind, w in switching:
                head.append(f"{kind} w{w} ms (vs w1, vs best)")
            print("| " + " | ".join(head) + " |")
            print("|" + "---|" * len(head))
            for h in steps:
                vanilla = {k[3]: v for k, v in rows.items()
                           if k[:3] == (group, size, "vanilla") and k[4] == h}
                if 1 not in vanilla:
                    continue
                w1 = vanilla[1]
                best_w = min(vanilla, key=vanilla.get)
                best = vanilla[best_w]
                cells = [f"{h:g}", f"{w1:.2f}", f"{best:.2f} ({best_w})"]
                for kind, w in switching:
                    t = rows.get((group, size, kind, w, h))
                    cells.append("—" if t is None else f"{t:.2f} ({w1 / t:.2f}×, {best / t:.2f}×)")
                print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
