#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Reads bench_model's JSON (--benchmark_out) and writes a plot of predicted against measured
time ratios (both metrics) and a markdown table with the errors and speedups.

  plot_model.py bench_model.json --png model-accuracy.png --table model-table.md

Exit status: 0 done; 1 an output could not be written after all; 2 bad usage, a file without
bm_model rows, or an output that cannot be written (one line on stderr)."""
import argparse
import os
import statistics
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ behind
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from benchmark_json import PROG, check_writable, fail, read_benchmark_json  # noqa: E402

NUMBERS = ("meas_ratio", "pred_w", "err_w_pct", "pred_ws", "err_ws_pct", "pred_ws_plain",
           "err_ws_plain_pct", "speedup", "host_ms", "breakeven", "e2e_speedup")



class Parser(argparse.ArgumentParser):
    """argparse with the one error line of every microsched program (exit 2)."""

    def error(self, message):
        fail(f"{message} (see --help)")


def check_output(option, path):
    """Exits 2 unless a file can be written at `path` (checked before reading; creates nothing)."""
    check_writable(f"{option} = '{path}'", path)


def rows(path):
    context, benchmarks = read_benchmark_json(path)
    out = []
    for b in benchmarks:
        name = str(b.get("name", "")) if isinstance(b, dict) else ""
        if not name.startswith("bm_model/") or "meas_ratio" not in b:
            continue
        parts = name.split("/")
        missing = [k for k in NUMBERS if not isinstance(b.get(k), (int, float))]
        if len(parts) < 3 or missing:
            fail(f"'{path}': row '{name}' lacks {', '.join(missing) or 'a workload and an order'}")
        out.append(dict(b, workload=parts[1], method=parts[2]))
    return context, out


def table(rs):
    lines = ["| workload | order | measured | BBV-w | err % | BBV-w-s | err % "
             "| BBV-w-s, rated on the predictions | err % "
             "| kernel speedup | host ms | break-even launches |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rs:
        even = f"{r['breakeven']:.0f}" if r["breakeven"] >= 0 and r["method"] != "original" else "–"
        lines.append(f"| {r['workload']} | {r['method']} | {r['meas_ratio']:.3f} | {r['pred_w']:.3f} "
                     f"| {r['err_w_pct']:.1f} | {r['pred_ws']:.3f} | {r['err_ws_pct']:.1f} "
                     f"| {r['pred_ws_plain']:.3f} | {r['err_ws_plain_pct']:.1f} "
                     f"| {r['speedup']:.2f}x | {r['host_ms']:.0f} | {even} |")
    # the shuffled order is a control (a random order), not a regrouping
    regrouped = [r for r in rs if r["method"] not in ("original", "shuffled")]
    for label, sel in (("all rows", rs), ("regrouped rows", regrouped)):
        if sel:
            lines.append(f"\nMean error over {label} ({len(sel)}): BBV-weighted "
                         f"{statistics.mean(r['err_w_pct'] for r in sel):.1f}%, BBV-weighted-scheduled "
                         f"{statistics.mean(r['err_ws_pct'] for r in sel):.1f}% (rated on the "
                         f"predictions: {statistics.mean(r['err_ws_plain_pct'] for r in sel):.1f}%).")
    for m in ("sorting", "greedy", "greedy_max", "ideal"):
        sel = [r for r in rs if r["method"] == m]
        if sel:
            lines.append(f"- {m}: kernel speedup mean {statistics.mean(r['speedup'] for r in sel):.2f}x "
                         f"(max {max(r['speedup'] for r in sel):.2f}x), end-to-end mean "
                         f"{statistics.mean(r['e2e_speedup'] for r in sel):.2f}x")
    return "\n".join(lines) + "\n"


def plot(rs, png, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 6))
    lo = min(min(r["meas_ratio"], r["pred_w"], r["pred_ws"]) for r in rs) * 0.9
    hi = max(max(r["meas_ratio"], r["pred_w"], r["pred_ws"]) for r in rs) * 1.1
    ax.plot([lo, hi], [lo, hi], "k--", lw=0.8, label="predicted = measured")
    markers = {"marching_cubes": "o", "alignment": "s", "photon": "^"}
    for key, color, name in (("pred_w", "tab:orange", "BBV-weighted"),
                             ("pred_ws", "tab:blue", "BBV-weighted-scheduled")):
        for w, m in markers.items():
            sel = [r for r in rs if r["workload"] == w]
            ax.scatter([r["meas_ratio"] for r in sel], [r[key] for r in sel], marker=m,
                       color=color, label=f"{name}, {w}", alpha=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured time ratio (regrouped / original)")
    ax.set_ylabel("predicted time ratio")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def main():
    p = Parser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("json", nargs="?", help="bench_model's --benchmark_out file")
    p.add_argument("--png", help="the plot to write")
    p.add_argument("--table", help="the markdown table to write")
    a, extra = p.parse_known_args()
    if extra:
        fail(f"unknown argument '{extra[0]}' (see --help)")
    if a.json is None:
        fail("the argument json is required (see --help)")
    for option, path in (("--png", a.png), ("--table", a.table)):
        if path is not None:
            check_output(option, path)
    context, rs = rows(a.json)
    if not rs:
        fail(f"'{a.json}' has no bm_model rows")
    text = table(rs)
    print(text)
    try:
        if a.table:
            with open(a.table, "w", encoding="utf-8") as f:
                f.write(text)
        if a.png:
            plot(rs, a.png,
                 f"bench_model on {context.get('gpu', context.get('host_name', 'the GPU'))}")
    except (OSError, ValueError) as e:
        fail(f"cannot write the outputs: {e}", 1)
    except ImportError:
        fail("matplotlib is not installed (apt-get install python3-matplotlib)", 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
