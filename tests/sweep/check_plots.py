#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Renders the sweep's plots from a small fake sweep (no GPU) and checks them: the sweep program
on the test-double workload runs plot_sweep.py after the sweep, and every scenario gets a heat map
and a speedup plot, each a PNG of plausible size. Exit 77 (skipped) without matplotlib.

Usage: check_plots.py SWEEP_FAKE [KEEP_FOLDER]"""
import os
import subprocess
import sys
import tempfile

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != PNG_SIGNATURE:
        raise SystemExit(f"{path}: not a PNG")
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def main():
    try:
        import matplotlib  # noqa: F401  (only to know whether the plots can be drawn here)
    except ImportError:
        print("SKIPPED: matplotlib is not installed (apt-get install python3-matplotlib)")
        return 77
    sweep_fake = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(tmp, "out")
        env = dict(os.environ, MICROSCHED_PYTHON=sys.executable)
        run = subprocess.run(
            [sweep_fake, "fake", "offset=0,1", "strategy=local,private_pools,hybrid", "chunk=1:1024:x4",
             "deferral=2:32:x4", "--out", out, "--overwrite", "--quiet", "--repetitions", "3"],
            env=env, capture_output=True, text=True)
        print(run.stdout[-2000:], run.stderr[-2000:])
        if run.returncode != 0:
            raise SystemExit(f"sweep_fake exited {run.returncode}")
        for scenario in ("fake_offset-0", "fake_offset-1"):
            for kind in ("heatmap", "speedup"):
                path = os.path.join(out, f"{kind}-{scenario}.png")
                if not os.path.exists(path):
                    raise SystemExit(f"{path} was not drawn")
                width, height = png_size(path)
                size = os.path.getsize(path)
                print(f"{path}: {width}x{height}, {size} bytes")
                if width < 500 or height < 300 or size < 15000:
                    raise SystemExit(f"{path}: too small for a plot with axes and labels")
        leftovers = [n for n in os.listdir(out) if n.endswith(".tmp")]
        if leftovers:
            raise SystemExit(f"temporary files left behind: {leftovers}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
