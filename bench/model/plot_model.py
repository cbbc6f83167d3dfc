#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Reads bench_model's JSON (--benchmark_out) and writes a plot of predicted against measured
time ratios (both metrics) and a markdown table with the errors and speedups.

  plot_model.py bench_model.json --png model-accuracy.png --table model-table.md"""
import argparse, json, statistics, sys


def rows(path):
    with open(path) as f:
        data = json.load(f)
    out = []
    for b in data["benchmarks"]:
        if not b["name"].startswith("bm_model/") or "meas_ratio" not in b:
            continue
        _, workload, method = b["name"].split("/")[:3]
        out.append(dict(b, workload=workload, method=method))
    return data.get("context", {}), out


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
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("json")
    p.add_argument("--png")
    p.add_argument("--table")
    a = p.parse_args()
    context, rs = rows(a.json)
    if not rs:
        sys.exit(f"{a.json}: no bm_model rows")
    text = table(rs)
    print(text)
    if a.table:
        with open(a.table, "w") as f:
            f.write(text)
    if a.png:
        plot(rs, a.png, f"bench_model on {context.get('gpu', context.get('host_name', 'the GPU'))}")


if __name__ == "__main__":
    main()
