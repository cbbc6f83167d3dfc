#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Plots of a parameter sweep, drawn with matplotlib from the sweep's sweep.json.

For every scenario it writes, next to sweep.json (or into --out):
  heatmap-<scenario>.png  speedup against vanilla over two axes (schedule axes or the workload's
                          tunables), one panel per strategy, each cell the best over the axes
                          not shown, with a colour bar; the best point framed, points that could
                          not run hatched
  speedup-<scenario>.png  best speedup against vanilla along one axis (chunk size, log scale, or
                          a tunable), one line per strategy, with vanilla (1x), persistent
                          threads and the uniform-work floor (the limit) as reference lines where
                          the workload has them

Usage: plot_sweep.py FOLDER [--heatmap-x chunk] [--heatmap-y deferral] [--line-x chunk]
                            [--out FOLDER]
An axis is a schedule axis (chunk, deferral, fetch, blocks-per-sm, budget, period) or a tunable
of the workload; an empty --heatmap-y draws one row.
Exit codes: 0 done, 2 bad input, 3 matplotlib is not installed (apt-get install python3-matplotlib).
"""
import argparse
import json
import math
import os
import re
import sys
import tempfile
import textwrap

AXES = {"chunk": "chunk", "deferral": "deferral", "fetch": "fetch", "blocks-per-sm": "blocks_per_sm",
        "budget": "budget", "period": "period"}
STRATEGIES = ["automatic", "direct", "local", "private_pools", "hybrid", "warp_range"]  # panel and legend order
COLOURS = {"automatic": "tab:purple", "direct": "tab:gray", "local": "tab:orange",
           "private_pools": "tab:blue", "hybrid": "tab:green", "warp_range": "tab:red"}


def file_slug(text):
    """A file-name-safe scenario key: "julia crunch=4096 offset=0" -> "julia_crunch-4096_offset-0"."""
    out = ""
    for c in text:
        if c.isalnum() or c in ".-":
            out += c
        elif c == "=":
            out += "-"
        elif out and out[-1] != "_":
            out += "_"
    return out.rstrip("_") or "scenario"


def axis_value(point, axis):
    """The point's value on a schedule axis or a tunable ("default" where the sweep left it)."""
    if not axis:
        return ""
    if axis in AXES:
        value = point["schedule"][AXES[axis]]
        if axis == "blocks-per-sm" and value == 0:
            return "auto"
        return str(value)
    return str(point.get("tunables", {}).get(axis, "default"))


def sort_values(values):
    """Numeric order where every value is a number ("auto" first), else first-seen order."""
    def key(v):
        return -1.0 if v in ("auto", "default") else float(v)
    try:
        return sorted(values, key=key)
    except ValueError:
        return values


def unique(seq):
    seen = []
    for v in seq:
        if v not in seen:
            seen.append(v)
    return seen


def strategies_of(points):
    """The strategies the points use, known ones in STRATEGIES' order, others after them."""
    seen = unique(p["schedule"]["strategy"] for p in points)
    return [s for s in STRATEGIES if s in seen] + [s for s in seen if s not in STRATEGIES]


def references(scenario):
    """Speedups of the references over vanilla; None where the workload has no such reference."""
    vanilla = scenario["vanilla"]["median_ms"]

    def speedup(name):
        ref = scenario.get(name)
        return vanilla / ref["median_ms"] if ref else None
    return {"vanilla_ms": vanilla, "persistent": speedup("persistent"), "floor": speedup("floor")}


def times(value):
    return "n/a" if value is None else f"{value:.2f}x"


def subtitle(doc, scenario):
    r = references(scenario)
    best = scenario.get("best")
    best_text = "no point ran" if not best else (
        f"best {best['speedup_vs_vanilla']:.2f}x ({best['median_ms']:.3f} ms"
        + (f", {best['over_floor']:.2f}x the floor's time)" if best.get("over_floor") else ")"))
    return (f"{doc['gpu']}; vanilla {r['vanilla_ms']:.3f} ms, persistent threads "
            f"{times(r['persistent'])}, floor {times(r['floor'])} (the limit); {best_text}")


def save(fig, path):
    """Written whole or not at all: a temporary file in the same folder, then renamed."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".png.tmp")
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=110, format="png")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def heatmap(plt, doc, scenario, x_axis, y_axis, path):
    points = scenario["points"]
    xs = sort_values(unique(axis_value(p, x_axis) for p in points))
    ys = sort_values(unique(axis_value(p, y_axis) for p in points))
    strategies = strategies_of(points) or ["-"]
    nan = float("nan")
    grids = {s: [[nan] * len(xs) for _ in ys] for s in strategies}
    skipped = {s: [[False] * len(xs) for _ in ys] for s in strategies}
    best_key = None
    best_value = -math.inf
    for p in points:
        s = p["schedule"]["strategy"]
        xi = xs.index(axis_value(p, x_axis))
        yi = ys.index(axis_value(p, y_axis))
        if p["status"] != "ok":
            skipped[s][yi][xi] = True
            continue
        v = p["speedup_vs_vanilla"]
        if math.isnan(grids[s][yi][xi]) or v > grids[s][yi][xi]:
            grids[s][yi][xi] = v
        if v > best_value:
            best_value, best_key = v, (s, yi, xi)
    values = [v for g in grids.values() for row in g for v in row if not math.isnan(v)]
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    if hi - lo < 1e-6:
        lo, hi = lo - 0.05, hi + 0.05

    cell_w = max(0.55, 0.09 * max(len(x) for x in xs) + 0.25)
    width = max(6.5, len(strategies) * (len(xs) * cell_w + 1.2) + 1.8)
    height = max(3.8, 0.42 * len(ys) + 2.6)
    fig, panels = plt.subplots(1, len(strategies), figsize=(width, height), squeeze=False,
                               sharey=True, constrained_layout=True)
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("white")
    image = None
    for panel, s in zip(panels[0], strategies):
        image = panel.imshow(grids[s], cmap=cmap, vmin=lo, vmax=hi, aspect="auto",
                             origin="lower", interpolation="nearest")
        for yi in range(len(ys)):
            for xi in range(len(xs)):
                v = grids[s][yi][xi]
                if not math.isnan(v):
                    bright = (v - lo) / (hi - lo) > 0.6
                    panel.text(xi, yi, f"{v:.2f}", ha="center", va="center", fontsize=8,
                               color="black" if bright else "white")
                elif skipped[s][yi][xi]:
                    panel.add_patch(plt.Rectangle((xi - 0.5, yi - 0.5), 1, 1, fill=False,
                                                  hatch="//", edgecolor="0.6", linewidth=0))
                    panel.text(xi, yi, "skip", ha="center", va="center", fontsize=7,
                               color="0.4")
        if best_key and best_key[0] == s:
            _, yi, xi = best_key
            panel.add_patch(plt.Rectangle((xi - 0.5, yi - 0.5), 1, 1, fill=False,
                                          edgecolor="crimson", linewidth=2.5))
        panel.set_xticks(range(len(xs)), xs, rotation=45 if len(xs) > 8 else 0)
        panel.set_yticks(range(len(ys)), ys)
        panel.set_xlabel(x_axis)
        if doc.get("takes_schedule", True):
            panel.set_title(f"strategy {s}", fontsize=10)
    panels[0][0].set_ylabel(y_axis)
    bar = fig.colorbar(image, ax=panels[0].tolist(), shrink=0.9)
    bar.set_label("speedup vs vanilla (x)")
    others = [a for a in list(AXES) + doc.get("tunables", []) if a not in (x_axis, y_axis)]
    if not doc.get("takes_schedule", True):
        others = [a for a in doc.get("tunables", []) if a not in (x_axis, y_axis)]
    fig.suptitle(f"Speedup vs vanilla: {scenario['scenario']}\n"
                 + textwrap.fill(subtitle(doc, scenario), int(width * 14)) + "\n"
                 f"cells: best over {', '.join(others) or 'nothing else'}; framed: the best point",
                 fontsize=9)
    save(fig, path)
    plt.close(fig)


def speedup_plot(plt, doc, scenario, path, line_x):
    points = [p for p in scenario["points"] if p["status"] == "ok"]
    r = references(scenario)
    fig, ax = plt.subplots(figsize=(7.5, 4.8), constrained_layout=True)
    chunk = line_x == "chunk"
    xs = sort_values(unique(axis_value(p, line_x) for p in points))
    for s in strategies_of(points):
        best = {}
        for p in points:
            if p["schedule"]["strategy"] != s:
                continue
            c = p["schedule"]["chunk"] if chunk else xs.index(axis_value(p, line_x))
            best[c] = max(best.get(c, -math.inf), p["speedup_vs_vanilla"])
        if best:
            at = sorted(best)
            label = f"microsched, {s} pools" if doc.get("takes_schedule", True) else "the area's method"
            ax.plot(at, [best[c] for c in at], marker="o", color=COLOURS.get(s), label=label)
    if r["floor"] is not None:
        ax.axhline(r["floor"], color="firebrick", linestyle="--",
                   label=f"floor {r['floor']:.2f}x (the limit)")
    if r["persistent"] is not None:
        ax.axhline(r["persistent"], color="dimgray", linestyle=":",
                   label=f"persistent threads {r['persistent']:.2f}x")
    ax.axhline(1.0, color="black", linewidth=0.8, label="vanilla (1x)")
    if chunk:
        ax.set_xscale("log", base=2)
        chunks = sorted({p["schedule"]["chunk"] for p in points})
        if chunks:
            ax.set_xticks(chunks, [str(c) for c in chunks])
            ax.minorticks_off()
        ax.set_xlabel("chunk (tasks per grab, log scale)")
    else:
        ax.set_xticks(range(len(xs)), xs)
        ax.set_xlabel(line_x)
    ax.set_ylabel("speedup vs vanilla (x), best over the other axes")
    refs = [v for v in (r["floor"], r["persistent"]) if v is not None]
    top = max(refs + [1.0] + [p["speedup_vs_vanilla"] for p in points])
    ax.set_ylim(0, top * 1.1)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    ax.set_title(f"{scenario['scenario']}\n" + textwrap.fill(subtitle(doc, scenario), 110),
                 fontsize=8)
    save(fig, path)
    plt.close(fig)


def schedule_fields(text):
    """A schedule's text form ("strategy=hybrid chunk=32 ...") as a dict, numbers as ints."""
    fields = {}
    for word in text.split():
        key, _, value = word.partition("=")
        fields[key] = int(value) if value.isdigit() else value
    return fields


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", help="the sweep's output folder (holds sweep.json)")
    parser.add_argument("--heatmap-x", default="chunk")
    parser.add_argument("--heatmap-y", default="deferral")
    parser.add_argument("--line-x", default="chunk")
    parser.add_argument("--out", help="folder for the PNGs (default: FOLDER)")
    args = parser.parse_args()
    if args.heatmap_x == args.heatmap_y:
        parser.error(f"the heat map axes are both '{args.heatmap_x}'")
    try:
        with open(os.path.join(args.folder, "sweep.json")) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"plot_sweep: {e}", file=sys.stderr)
        return 2
    if doc.get("format") != "microsched-sweep-results":
        print(f"plot_sweep: {args.folder}/sweep.json is not a sweep results file", file=sys.stderr)
        return 2
    for scenario in doc.get("scenarios", []):
        for point in scenario.get("points", []):
            point["schedule"] = schedule_fields(point["schedule"])
    known = (list(AXES) if doc.get("takes_schedule", True) else []) + doc.get("tunables", [])
    for name, value in (("--heatmap-x", args.heatmap_x), ("--heatmap-y", args.heatmap_y),
                        ("--line-x", args.line_x)):
        if value not in known and not (name == "--heatmap-y" and value == ""):
            # A tunable the sweep left at its default is an axis too (one value: "default").
            if value in AXES or not value:
                print(f"plot_sweep: {name} {value!r}: expected one of {', '.join(known)}",
                      file=sys.stderr)
                return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_sweep: matplotlib is not installed (apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 3
    out = args.out or args.folder
    os.makedirs(out, exist_ok=True)
    for scenario in doc["scenarios"]:
        slug = file_slug(scenario["scenario"])
        for path, draw in (
                (f"heatmap-{slug}.png",
                 lambda p: heatmap(plt, doc, scenario, args.heatmap_x, args.heatmap_y, p)),
                (f"speedup-{slug}.png",
                 lambda p: speedup_plot(plt, doc, scenario, p, args.line_x))):
            draw(os.path.join(out, path))
            print(os.path.join(out, path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
