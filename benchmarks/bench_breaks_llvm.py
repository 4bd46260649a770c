"""The break walk with its inner loop generated per board (breaks_llvm.py) against the walk with numba's
`_dive`, on the official set, one thread.

    BENCH_LOG_DIR=off NUMBA_NUM_THREADS=1 taskset -c 1 python -m benchmarks.bench_breaks_llvm --placements 200000000 --repeats 3

Each side is one restart of the `breaks` optimizer's defaults on Eternity II (staircase order, the default
schedule, the starter pre-placed, parity off, quota `--quota`: the triple the probes choose for seed 0,
`--tail` 12: partials 12 cells short completed exactly, their placements not counted), seed `--seed`,
walked by breaks_walk `_walk` with numba's `_dive` or with the generated dive (given its address) to
`--placements` placements without abandon, the sides interleaved and repeated; placements per second, median (min, max), and the ratio.
Both sides must end with the same figures and arrays, or the run stops. Also printed: the dive's
compile time and what a call to it costs from numba (a call that returns at once, timed in a loop).
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from benchmarks import flags
from benchmarks.timing import compare, report
from puzzles.edge_matching.eternity2 import Eternity2
from puzzles.edge_matching.solvers import breaks_walk as bw
from puzzles.edge_matching.solvers.breaks_llvm_walk import GeneratedDive
from puzzles.edge_matching.solvers.breaks_tables import REGS, Tables
from puzzles.edge_matching.solvers.dive_call import call_dive

QUOTA_RUN = [3, 20, 7]  # as benchmarks/eternity2_ladder.py: the probes' choice on the official set, seed 0


def setup(tables: Tables, quota, seed: int):
    """A restart set up for both walks: (state, lists2, hist), the extra checks, and the dive."""
    state, lists2 = tables.prepare(quota, False, seed)
    return state, lists2, np.zeros((2, tables.cells_count), np.int64), tables.extra


def walk(tables: Tables, quota, seed: int, placements: int, dive: GeneratedDive | None, tail: int = 12):
    """One restart to `placements`: its returned figures and the arrays it ends with."""
    state, lists2, hist, _ = setup(tables, quota, seed)
    cells = tables.cells_count
    block = None
    if dive is not None:
        block, state, lists2, hist = dive.bind(state, lists2, hist)
    outs = (hist, np.full(cells, -1, np.int64), tables.board0.copy(), np.zeros(2 * cells + 1, np.int64),
            np.zeros((0, cells), np.int64), np.zeros(0, np.int64))  # fmt: skip
    caps = (placements, 0, 0, 1 << 30, False, -1, tail, 1 << 30, 0, False)
    regs, stop, bound = np.zeros(REGS, np.int64), np.zeros(1, np.int64), np.full(1, 1 << 30, np.int64)
    regs[bw.PAUSE_AT] = bw.NEVER
    args = (tables.geometry, tables.lists, state, lists2, caps, stop, outs, regs, bound)
    figures = bw._walk(*args, *((0, 0) if dive is None else (dive.address, block.ctypes.data)))
    return tuple(int(x) for x in figures), [a.copy() for a in (*outs[:3], state[1], state[3], lists2[3])]


@numba.njit(cache=True)
def _calls(dive, block, n):
    """n calls that return at once (depth -1: the dispatch's default): the cost of a call."""
    total = 0
    for k in range(n):
        i, nodes = call_dive(dive, block, -1, 0, k, 0, 0, 0, 0, 0, 0)
        total += nodes
    return total


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, checked (a bad one: one line and exit 2)."""
    parser = flags.Parser("bench_breaks_llvm", __doc__)
    parser.add_argument("--placements", type=flags.whole(1000), default=200_000_000)
    parser.add_argument("--repeats", type=flags.count, default=3)
    parser.add_argument("--seed", type=flags.whole(0), default=0)
    parser.add_argument("--quota", default=",".join(map(str, QUOTA_RUN)))
    parser.add_argument("--tail", type=flags.whole(0), default=12)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    quota = [int(c) for c in args.quota.split(",") if c]
    tables = Tables(Eternity2(), "staircase", None, None)
    state, lists2, hist, extra = setup(tables, quota, args.seed)
    dive = GeneratedDive(state, lists2, hist, extra, None)
    print(f"the dive: {len(dive.text.splitlines()):,} lines of IR, compiled in {dive.compile_seconds:.2f} s")
    walk(tables, quota, args.seed, 10_000, None)  # numba's compile (or cache) off the clock
    walk(tables, quota, args.seed, 10_000, dive)
    block, *_ = dive.bind(state, lists2, hist)
    _calls(dive.address, block.ctypes.data, 10)
    n = 10_000_000
    started = time.perf_counter()
    _calls(dive.address, block.ctypes.data, n)
    print(f"a call from numba that returns at once: {(time.perf_counter() - started) / n * 1e9:.1f} ns")
    sides = {
        "numba _dive": lambda: walk(tables, quota, args.seed, args.placements, None, args.tail),
        "generated": lambda: walk(tables, quota, args.seed, args.placements, dive, args.tail),
    }
    timings = compare(sides, repeats=args.repeats, warmup=0)
    (a, a_arrays), (b, b_arrays) = timings["numba _dive"].result, timings["generated"].result
    if a != b or any((x != y).any() for x, y in zip(a_arrays, b_arrays, strict=True)):
        raise AssertionError(f"the walks differ: {a} against {b}")
    print(
        f"official set, staircase, default schedule, quota {quota}, seed {args.seed}, one restart of "
        f"{a[0]:,} placements each side (deepest {a[2]}, its breaks {a[3]}; tail {args.tail}), the same "
        "figures and arrays"
    )
    report(timings, baseline="numba _dive", unit="placements", work=a[0])


if __name__ == "__main__":
    flags.run(main)
