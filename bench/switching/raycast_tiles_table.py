#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Summarises the raycast_tiles* rows of a bench_switching JSON (step 0.0125): vanilla per task
order and window, and the fastest switching variants per image size, skipping, order and register
cap, with speedups against the textbook vanilla (window 1, row-major), vanilla at window 1 in the
same order, and the best vanilla of every order and window.
  python3 bench/switching/raycast_tiles_table.py bench.json [top]"""
import json, sys
from collections import defaultdict

rows = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["name"].startswith("raycast_tiles") and "error_message" not in b]
top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
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
    wins = sorted({w for _, w in van[key]}, key=lambda w: int(w[9:]))
    print("tile  " + " ".join(f"{w[8:]:>7}" for w in wins))
    for t in tiles:
        print(f"{t:6}" + " ".join(f"{van[key].get((t, w), float('nan')):7.2f}" for w in wins))
for key in sorted(best):
    v = sorted(best[key], key=lambda x: x[0])
    print(f"== switching {key[0]} {key[1]}: fastest (ms, x textbook w1 rows, x w1 same order, x best vanilla)")
    for ms, name, b in v[:top]:
        print(f"{ms:7.3f} {b['speedup_w1_rows']:5.2f}x {b['speedup_w1']:5.2f}x {b['speedup']:5.2f}x  {name}")
    groups = defaultdict(lambda: 1e30)
    for ms, name, b in v:
        p = name.split("/")
        groups[(p[0], p[1])] = min(groups[(p[0], p[1])], ms)
    print("  best per order, cap: " + "; ".join(f"{t} {c}: {ms:.3f}" for (t, c), ms in sorted(groups.items())))
