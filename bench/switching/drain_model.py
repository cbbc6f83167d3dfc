#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""One warp of the switching driver on the Monte Carlo branch test, on the CPU.

Models what a warp issues (march windows, the branch, a vote per visit) while its 32 lanes and
its context pool run the tasks the way switching_gate and context_pool do (majority path, movers
swap with parked contexts of the chosen path, then store, then park; empty lanes fill from the
pool, rings resumed first in first out), and splits the time into the steady state and the drain
(from the visit that finds the source empty to the end). Efficiency is the lanes' useful work
over 32 times the warp's time: what the kernel reaches if every warp issues at the same pace.
Each drain policy below changes only what happens once the source is empty (or, for the late
caps, shortly before). With --list-bound it prints instead what a perfect schedule that runs each
task on one lane to its end needs at 2^19 tasks (every lane takes the next task the moment it is
free, no SIMD loss, the pace per lane the ideal's at that many lanes). Usage: drain_model.py
[--tasks N] [--seeds K] [--list-bound]
"""
import argparse
import heapq
import math
import os
import random
import sys

OUTER, P, WINDOW = 1000, 0.01, 32  # the bench row: 1000 iterations, p = 0.01, window 32
COST_ITERATION, COST_BRANCH, COST_VOTE = 56, 16500, 150  # instructions (ncu: thread inst / work)
IDEAL_MS = 5.548  # the bench row's ideal on an H100 (docs/performance.md)


def simulate(tasks, seed, policy="fifo", late=0, late_cap=128, drain_window=WINDOW, capacity=128):
    """Returns (warp time, drain time, useful lane work / 32), all in instructions."""
    rnd = random.Random(seed)
    started, lanes, lists = 0, [None] * 32, {True: [], False: []}
    time, drained_at, work = 0.0, None, 0.0
    while True:
        for i in range(32):  # refill: empty lanes take fresh tasks [id, iteration, wants branch]
            if lanes[i] is None and started < tasks:
                lanes[i] = {"id": started, "it": 0, "then": False, "parked": None}
                started += 1
        if started >= tasks and drained_at is None:
            drained_at = time
        if all(c is None for c in lanes) and not lists[True] and not lists[False]:
            return time, time - drained_at, work / 32
        window = drain_window if drained_at is not None else WINDOW
        marched = 0
        for c in lanes:  # active lanes march up to a window, stopping at the first branch entry
            if c is None or c["parked"] is not None or c["then"]:
                continue
            w = 0
            while True:
                w += 1
                if rnd.random() < P:
                    c["then"] = True
                    break
                if w >= window or c["it"] + 1 >= OUTER:
                    break
                c["it"] += 1
            marched, work = max(marched, w), work + w * COST_ITERATION
        time += marched * COST_ITERATION + COST_VOTE
        if policy == "direct" and drained_at is not None:  # no gathering: every lane runs its own
            for i in range(32):
                if lanes[i] is None and (lists[True] or lists[False]):
                    lanes[i] = (lists[True] or lists[False]).pop(0)
                if lanes[i] is not None:
                    lanes[i]["parked"] = None
            path = True
        else:
            need = lambda c: c["then"] if c["parked"] is None else c["parked"]
            held = [i for i, c in enumerate(lanes) if c is not None]
            want_then = sum(1 for i in held if need(lanes[i]))
            n_then, n_else = want_then + len(lists[True]), len(held) - want_then + len(lists[False])
            path = n_then > n_else if n_then != n_else else want_then > len(held) - want_then
            if policy == "youngest path" and drained_at is not None:
                # the path the context with the most iterations left needs, parked ones included
                youngest = min([lanes[i] for i in held] + lists[True] + lists[False],
                               key=lambda c: c["it"])
                attached = any(youngest is lanes[i] for i in held)
                path = need(youngest) if attached else any(youngest is c for c in lists[True])
            avail, other = lists[path], lists[not path]
            if policy == "remaining" and drained_at is not None:
                avail.sort(key=lambda c: -c["it"])  # the most iterations left resume first
            take = avail.pop if policy == "remaining" and drained_at is not None else (
                lambda: avail.pop(0))
            cap = late_cap if tasks - started < late else capacity
            free = cap - len(lists[True]) - len(lists[False])
            for i in held:
                c = lanes[i]
                if need(c) == path:
                    c["parked"] = None
                elif avail:  # swap
                    c["parked"] = None
                    other.append(c)
                    lanes[i] = take()
                elif free > 0:  # store
                    c["parked"] = None
                    other.append(c)
                    free -= 1
                    lanes[i] = None
                else:  # park attached
                    c["parked"] = not path
            for i in range(32):  # fill
                if lanes[i] is None and avail:
                    lanes[i] = take()
                    lanes[i]["parked"] = None
        ran = False
        for i in range(32):
            c = lanes[i]
            if c is None or c["parked"] is not None:
                continue
            if path and c["then"]:
                c["then"], ran, work = False, True, work + COST_BRANCH
            if not c["then"]:
                c["it"] += 1
                if c["it"] >= OUTER:
                    lanes[i] = None
        if ran:
            time += COST_BRANCH


def list_bound(lanes, seed, tasks=524288):
    """The makespan in ms of the list schedule --list-bound names, the ideal's work spread over
    `lanes`."""
    rnd = random.Random(seed)
    lengths = []
    for _ in range(tasks):  # outer iterations plus the branch's Philox calls per entry
        entries, i = 0, 0
        while True:  # Binomial(OUTER, P) through geometric gaps between entries
            i += int(math.log(1.0 - rnd.random()) / math.log(1.0 - P)) + 1
            if i > OUTER:
                break
            entries += 1
        lengths.append(OUTER + OUTER // 4 * entries)
    unit = IDEAL_MS * lanes / sum(lengths)
    free_at = [0.0] * lanes
    for length in lengths:
        heapq.heappush(free_at, heapq.heappop(free_at) + length * unit)
    return max(free_at)


class Parser(argparse.ArgumentParser):
    """Bad usage: one line "drain_model.py: error: ..." on stderr, exit 2."""

    def error(self, message):
        sys.stderr.write(f"{os.path.basename(sys.argv[0])}: error: {message} (see --help)\n")
        sys.exit(2)


def main():
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=248,
                        help="tasks of the warp (248: 2^19 tasks on 132 SMs x 16 warps)")
    parser.add_argument("--seeds", type=int, default=8, help="runs averaged per row")
    parser.add_argument("--list-bound", action="store_true",
                        help="the run-to-completion bound at 8 and 16 warps per SM (about 30 s)")
    a = parser.parse_args()
    if a.tasks < 1 or a.seeds < 1:
        parser.error(f"--tasks {a.tasks} and --seeds {a.seeds} must be at least 1")
    if a.list_bound:
        for warps in (8, 16):
            ms = sorted(list_bound(132 * warps * 32, seed=s) for s in range(a.seeds))
            print(f"{warps} warps per SM: {ms[0]:.3f}-{ms[-1]:.3f} ms over {a.seeds} seeds, "
                  f"{IDEAL_MS / ms[-1]:.1%}-{IDEAL_MS / ms[0]:.1%} of the ideal")
        return
    task_time = OUTER * COST_ITERATION + OUTER * P * COST_BRANCH
    rows = [("rings, as the driver runs", {}),
            ("4x the tasks", {"tasks": 4 * a.tasks}),
            ("drain: most iterations left first", {"policy": "remaining"}),
            ("drain: the youngest context's path", {"policy": "youngest path"}),
            ("drain: no gathering (direct)", {"policy": "direct"}),
            ("no new parking in the last 64 tasks", {"late": 64, "late_cap": 0}),
            ("drain window 16", {"drain_window": 16}),
            ("drain window 64", {"drain_window": 64})]
    print(f"{'':40s} efficiency  drain (task times)")
    for name, kw in rows:
        kw.setdefault("tasks", a.tasks)
        runs = [simulate(seed=s, **kw) for s in range(a.seeds)]
        total = sum(r[0] for r in runs)
        print(f"{name:40s} {sum(r[2] for r in runs) / total:9.1%}  "
              f"{sum(r[1] for r in runs) / len(runs) / task_time:6.2f}")


if __name__ == "__main__":
    main()
