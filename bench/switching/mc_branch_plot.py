#!/usr/bin/env python3
"""Draws the Monte Carlo branch test (frey2012 §5.1) as an SVG: time against the branch
probability p, log-log, for vanilla, microsched and the ideal line (the vanilla time at p = 1
scaled by the work done at p), from the mc_branch/* rows of a bench_switching JSON file.

  bench_switching --benchmark_filter='mc_branch/' --benchmark_out=mc.json --benchmark_out_format=json
  python3 bench/switching/mc_branch_plot.py mc.json docs/img/mc-branch.svg

Only the standard library: the picture is plain SVG text, so it needs no plotting package.
"""
import json
import math
import os
import sys
import tempfile

SERIES = [  # (bench variant, legend, colour, dashed)
    ("vanilla", "vanilla (one thread per task)", "#d62728", False),
    ("microsched", "microsched (context switching)", "#1f77b4", False),
    ("microsched_threshold24", "microsched, vote threshold 24", "#17becf", False),
]
IDEAL = ("ideal: vanilla at p = 1 x work done at p", "#555555")

W, H = 720, 460
LEFT, RIGHT, TOP, BOTTOM = 78, 250, 40, 62


def read_rows(path):
    """{variant: {p: (ms, ideal_ms)}} from the JSON; exits with a message if there are none."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"mc_branch_plot: cannot read {path}: {e}")
    rows = {}
    for b in data.get("benchmarks", []):
        name = b.get("name", "")
        if not name.startswith("mc_branch/") or "ms" not in b or b.get("error_occurred"):
            continue
        variant = name.split("/")[1]
        rows.setdefault(variant, {})[round(float(b["p"]), 6)] = (float(b["ms"]), float(b["ideal_ms"]))
    if "vanilla" not in rows or "microsched" not in rows:
        sys.exit(f"mc_branch_plot: {path} has no mc_branch/vanilla and mc_branch/microsched rows")
    return rows, data.get("context", {}).get("device", "")


def decades(lo, hi):
    return [10.0**k for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]


def svg(rows, device):
    ps = sorted(rows["vanilla"])
    values = [ms for v in rows.values() for ms, _ in v.values()] + [i for _, i in rows["vanilla"].values()]
    x_ticks = decades(min(ps), max(ps))
    y_ticks = decades(min(values), max(values))
    x0, x1 = math.log10(x_ticks[0]), math.log10(x_ticks[-1])
    y0, y1 = math.log10(y_ticks[0]), math.log10(y_ticks[-1])
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def px(p):
        return LEFT + (math.log10(p) - x0) / (x1 - x0) * pw

    def py(ms):
        return TOP + ph - (math.log10(ms) - y0) / (y1 - y0) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{LEFT}" y="22" font-size="14">Monte Carlo branch test: time against the '
           f'branch probability p (log-log)</text>']
    for t in x_ticks:
        out.append(f'<line x1="{px(t):.1f}" y1="{TOP}" x2="{px(t):.1f}" y2="{TOP + ph}" stroke="#ddd"/>')
        out.append(f'<text x="{px(t):.1f}" y="{TOP + ph + 18}" text-anchor="middle">{t:g}</text>')
    for t in y_ticks:
        out.append(f'<line x1="{LEFT}" y1="{py(t):.1f}" x2="{LEFT + pw}" y2="{py(t):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="black"/>')
    out.append(f'<text x="{LEFT + pw / 2}" y="{H - 22}" text-anchor="middle">p (probability that an '
               f'outer iteration enters the 1000-draw branch)</text>')
    out.append(f'<text transform="translate(20,{TOP + ph / 2}) rotate(-90)" text-anchor="middle">'
               f'time per run, ms (median)</text>')
    if device:
        out.append(f'<text x="{LEFT}" y="{H - 6}" font-size="10" fill="#555">{device}</text>')

    def polyline(points, colour, dashed):
        d = " ".join(f"{px(p):.1f},{py(ms):.1f}" for p, ms in points)
        dash = ' stroke-dasharray="6,4"' if dashed else ""
        marks = "".join(f'<circle cx="{px(p):.1f}" cy="{py(ms):.1f}" r="3" fill="{colour}"/>'
                        for p, ms in points)
        return f'<polyline points="{d}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>' + marks

    legend = []
    ideal = [(p, rows["vanilla"][p][1]) for p in ps]
    out.append(polyline(ideal, IDEAL[1], True))
    legend.append((IDEAL[0], IDEAL[1], True))
    for variant, label, colour, dashed in SERIES:
        if variant not in rows:
            continue
        out.append(polyline(sorted((p, ms) for p, (ms, _) in rows[variant].items()), colour, dashed))
        legend.append((label, colour, dashed))
    ly = TOP + 10
    for label, colour, dashed in legend:
        dash = ' stroke-dasharray="6,4"' if dashed else ""
        out.append(f'<line x1="{LEFT + pw + 12}" y1="{ly}" x2="{LEFT + pw + 36}" y2="{ly}" '
                   f'stroke="{colour}" stroke-width="2"{dash}/>')
        words, line = label.split(), ""
        lines = []
        for w in words:  # wrap at ~28 characters
            if len(line) + len(w) > 28:
                lines.append(line)
                line = ""
            line = f"{line} {w}".strip()
        lines.append(line)
        for i, text in enumerate(lines):
            out.append(f'<text x="{LEFT + pw + 42}" y="{ly + 4 + 14 * i}">{text}</text>')
        ly += 14 * len(lines) + 12
    at = [p for p in rows["microsched"] if abs(p - 0.01) < 1e-6 and p in rows["vanilla"]]
    if at:  # the bench stores p as a float counter: 0.01 comes back as 0.00999999977...
        s = rows["vanilla"][at[0]][0] / rows["microsched"][at[0]][0]
        out.append(f'<text x="{LEFT + pw + 12}" y="{ly + 14}">at p = 0.01: {s:.1f}x vanilla</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__.strip() if len(sys.argv) == 2 else "usage: mc_branch_plot.py BENCH.json OUT.svg")
    rows, device = read_rows(sys.argv[1])
    text = svg(rows, device)
    target = os.path.abspath(sys.argv[2])
    try:  # whole file or nothing: write beside the target, then rename
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), suffix=".svg.tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except OSError as e:
        sys.exit(f"mc_branch_plot: cannot write {sys.argv[2]}: {e}")
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
