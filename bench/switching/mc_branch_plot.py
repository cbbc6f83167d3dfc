#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Draws the Monte Carlo branch test (frey2012 §5.1) with matplotlib: time against the branch
probability p, log-log, for vanilla, the wavefront baseline (CUB queues between kernels),
microsched's default (the automatic schedule), context switching on hybrid pools and the ideal
line (the vanilla time at p = 1 scaled by the work done at p), from the mc_branch/* rows of a
bench_switching JSON file.

  bench_switching --benchmark_filter='mc_branch/' --benchmark_out=mc.json --benchmark_out_format=json
  python3 bench/switching/mc_branch_plot.py mc.json mc-branch.png

The output's suffix (.svg, .png, .pdf) picks the format. Needs python3-matplotlib.
Exit status: 0 done; 1 the plot could not be written after all; 2 bad usage, a file that is not
bench_switching JSON with mc_branch rows, or an output that cannot be written (one line on stderr).
"""
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # leave no __pycache__ behind
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from benchmark_json import PROG, check_writable, fail, positional_arguments, read_benchmark_json  # noqa: E402,E501

SERIES = [  # (bench variant, legend, colour, line style)
    ("vanilla", "vanilla (one thread per task)", "tab:red", "-"),
    ("wavefront", "wavefront (CUB queues between kernels)", "tab:green", "-"),
    ("microsched_hybrid", "microsched, context switching on hybrid pools", "tab:cyan", ":"),
    ("microsched", "microsched default (automatic: switching or the direct mapping)", "tab:blue",
     "-"),
]
IDEAL = ("ideal: vanilla at p = 1 x work done at p", "0.35")
FORMATS = ("svg", "png", "pdf")



def check_output(out):
    """Exits 2 unless a plot can be written at `out` (checked before reading; creates nothing)."""
    if os.path.splitext(out)[1].lstrip(".") not in FORMATS:
        fail(f"'{out}': the name must end in .svg, .png or .pdf")
    check_writable(f"'{out}'", out)


def read_rows(path):
    """{variant: {p: (ms, ideal_ms)}} from the JSON; exits 2 with a message if there are none."""
    context, benchmarks = read_benchmark_json(path)
    rows = {}
    for b in benchmarks:
        if not isinstance(b, dict):
            continue
        name = str(b.get("name", ""))
        if not name.startswith("mc_branch/") or "ms" not in b or b.get("error_occurred"):
            continue
        variant = name.split("/")[1]
        try:
            rows.setdefault(variant, {})[round(float(b["p"]), 6)] = (float(b["ms"]),
                                                                     float(b["ideal_ms"]))
        except (KeyError, TypeError, ValueError):
            fail(f"'{path}': row '{name}' lacks the numbers p, ms and ideal_ms")
    if "vanilla" not in rows or "microsched" not in rows:
        fail(f"'{path}' has no mc_branch/vanilla and mc_branch/microsched rows")
    return rows, context.get("device", "")


def draw(rows, device, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("matplotlib is not installed (apt-get install python3-matplotlib)", 1)
    fig, ax = plt.subplots(figsize=(7.5, 4.6), constrained_layout=True)
    ps = sorted(rows["vanilla"])
    ax.plot(ps, [rows["vanilla"][p][1] for p in ps], color=IDEAL[1], linestyle="--",
            label=IDEAL[0])
    for variant, label, colour, style in SERIES:
        if variant in rows:
            points = sorted(rows[variant].items())
            ax.plot([p for p, _ in points], [ms for _, (ms, _) in points], color=colour,
                    linestyle=style, marker="o", markersize=4, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("branch probability p (the chance that an outer iteration enters the "
                  "1000-draw branch)")
    ax.set_ylabel("time per run, ms (median)")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8)
    ax.set_title("Monte Carlo branch test (frey2012 5.1)" + (f"\n{device}" if device else ""),
                 fontsize=10)
    folder = os.path.dirname(os.path.abspath(out))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=os.path.basename(out) + ".", suffix=".tmp")
        os.close(fd)
        fig.savefig(tmp, format=os.path.splitext(out)[1].lstrip("."))
        os.replace(tmp, out)
    except (OSError, ValueError) as e:
        fail(f"cannot write '{out}': {e}", 1)
    finally:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)


def main():
    bench_json, out = positional_arguments(2, "mc_branch_plot.py BENCH.json OUT.svg", __doc__)
    check_output(out)
    rows, device = read_rows(bench_json)
    draw(rows, device, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
