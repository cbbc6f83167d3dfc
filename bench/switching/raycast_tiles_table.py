#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Summarises the raycast_tiles* rows of a bench_switching JSON (step 0.0125): vanilla per task
order and window, and the fastest switching variants per image size, skipping, order and register
cap, with speedups against the textbook vanilla (window 1, row-major), vanilla at window 1 in the
same order, and the best vanilla of every order and window.
  python3 bench/switching/raycast_tiles_table.py bench.json [top]
Exit status: 0 done, 2 bad usage or a file without such rows (one line on stderr)."""
import os
import sys
from collections import defaultdict

sys.dont_write_bytecode = True  # leave no __pycache__ behind
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from benchmark_json import PROG, fail, read_benchmark_json  # noqa: E402




def read_rows(path):
    """The raycast_tiles* rows that ran; exits 2 naming the file when there are none."""
    rows = [b for b in read_benchmark_json(path)[1]
            if str(b.get("name", "")).startswith("raycast_tiles") and "error_message" not in b
            and len(str(b["name"]).split("/")) >= 4 and isinstance(b.get("ms"), (int, float))]
    if not rows:
        fail(f"'{path}' has no raycast_tiles rows")
    return rows


def main():
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    for arg in sys.argv[1:]:
        if arg.startswith("-"):
            fail(f"unknown option '{arg}' (see --help)")
    if len(sys.argv) not in (2, 3):
        fail("usage: raycast_tiles_table.py BENCH.json [TOP] (see --help)")
    top = 12
    if len(sys.argv) == 3:
        if not sys.argv[2].isdigit() or int(sys.argv[2]) < 1:
            fail(f"TOP = '{sys.argv[2]}': must be a whole number >= 1")
        top = int(sys.argv[2])
    rows = read_rows(sys.argv[1])
    van = defaultdict(dict)
    best = defaultdict(list)
    for b in rows:
        parts = b["name"].split("/")
        skip = "skip" if parts[0].startswith("raycast_tiles_skip") else "noskip"
        size = parts[1]
        if "_tune" not in parts[0]:
            van[(size, skip)][(parts[2][5:], parts[3])] = b["ms"]
        else:
            best[(size, skip)].append((b["ms"], "/".join(parts[2:-1]), b))
    for key in sorted(van):
        print(f"== vanilla {key[0]} {key[1]} (ms)")
        tiles = sorted({t for t, _ in van[key]})
        wins = sorted({w for _, w in van[key]},
                      key=lambda w: int(w[9:]) if w[9:].isdigit() else 0)
        print("tile  " + " ".join(f"{w[8:]:>7}" for w in wins))
        for t in tiles:
            print(f"{t:6}" + " ".join(f"{van[key].get((t, w), float('nan')):7.2f}" for w in wins))
    nan = float("nan")
    for key in sorted(best):
        v = sorted(best[key], key=lambda x: x[0])
        print(f"== switching {key[0]} {key[1]}: fastest (ms, x textbook w1 rows, x w1 same order, "
              "x best vanilla)")
        for ms, name, b in v[:top]:
            print(f"{ms:7.3f} {b.get('speedup_w1_rows', nan):5.2f}x {b.get('speedup_w1', nan):5.2f}x "
                  f"{b.get('speedup', nan):5.2f}x  {name}")
        groups = defaultdict(lambda: 1e30)
        for ms, name, b in v:
            p = name.split("/") + [""]
            groups[(p[0], p[1])] = min(groups[(p[0], p[1])], ms)
        print("  best per order, cap: " + "; ".join(f"{t} {c}: {ms:.3f}"
                                                    for (t, c), ms in sorted(groups.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
