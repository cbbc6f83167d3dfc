#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Turns Google Benchmark JSON from bench_termination into the Markdown table of docs/performance.md.
Usage: scripts/bench_table.py bench_termination.json"""
import json, sys

data = json.load(open(sys.argv[1]))
ctx = data["context"]
print(f"GPU: {ctx.get('gpu', '?')}; default schedule: {ctx.get('default_schedule', '?')}; "
      f"run {ctx.get('date', '?')}\n")
print("| row | vanilla | warp PT | default | best | floor | default × vanilla | best × vanilla "
      "| best × PT | best / floor speed | vanilla / floor | best setting |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for b in data["benchmarks"]:
    name = b["name"].replace("/iterations:1/manual_time", "")
    best = b.get("label", "").replace("best: ", "")
    print(f"| {name} | {b['vanilla_ms']:.3f} | {b['persistent_ms']:.3f} | {b['default_ms']:.3f} "
          f"| {b['best_ms']:.3f} | {b['floor_ms']:.3f} | {b['default_x_vanilla']:.2f} "
          f"| {b['best_x_vanilla']:.2f} | {b['best_x_persistent']:.2f} | {b['floor_over_best']:.2f} "
          f"| {b['vanilla_over_floor']:.2f} | {best} |")
