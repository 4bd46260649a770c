"""Greedy speed: the project's compiled greedy against the seed's plain Python greedy
(benchmarks/seed_greedy_plain.py) on the same shuffled piece lists, and the whole seed sweep.

Per solve (n = 13 and 15): the plain seed code once per size, the project's seed-faithful and
corrected greedy many times; the faithful result must equal the seed's, board for board.
Target: >= 100x per solve. The seed sweep (n = 13 and 15, colours 2 .. 2n(n-1), one instance
each, as the article ran it): 730 solves; target < 5 minutes on 2 cores. The plain seed sweep
is not run (hours): its time is estimated from the measured plain solves (labelled as such).

    python -m benchmarks.bench_edge_greedy [--colours 20] [--jobs 2] [--repeats 20]
"""
from __future__ import annotations

import argparse
import os
import random
import time

import numpy as np
from joblib import Parallel, delayed

from benchmarks import seed_greedy_plain as seed
from experiments.colour_sweep import greedy_point, seed_colours
from heuristics.edge_greedy import greedy

SIZES = (13, 15)


def seed_instance(n: int, colours: int, k: int = 0) -> list[list[int]]:
    """A shuffled piece list as the seed makes it (its generator, its shuffle), pinned by k."""
    rnd = random.Random(k)
    return seed.puzzle_making(seed.generate_puzzle(n, colours, rnd), rnd)


def time_plain(listed: list[list[int]]) -> tuple[float, list]:
    """Seconds for one plain seed solve, and its board."""
    start = time.perf_counter()
    board = seed.solve([list(p) for p in listed])
    return time.perf_counter() - start, board


def time_project(listed, n: int, faithful: bool, repeats: int) -> tuple[float, list]:
    """Mean seconds per project greedy solve (compiled already), and its board as colour lists."""
    colours, centre = np.array(listed), (n * n - 1) // 2
    fixed = [[centre, centre, 0]]
    greedy(colours, n, fixed, seed_faithful=faithful)  # compile / load the cache outside the clock
    start = time.perf_counter()
    for _ in range(repeats):
        piece, _ = greedy(colours, n, fixed, seed_faithful=faithful)
    return (time.perf_counter() - start) / repeats, [listed[p] for p in piece]


def per_solve(colours: int, repeats: int) -> dict[int, float]:
    """Print per-solve times and ratios for each size; return the plain seconds per size."""
    plain_seconds = {}
    for n in SIZES:
        listed = seed_instance(n, colours)
        plain, board = time_plain(listed)
        faithful, same = time_project(listed, n, True, repeats)
        corrected, _ = time_project(listed, n, False, repeats)
        assert same == board, "the seed-faithful greedy must return the seed's board"
        plain_seconds[n] = plain
        print(f"n={n}, {colours} colours: plain seed {plain:8.3f} s | faithful {faithful * 1e3:7.2f} ms "
              f"({plain / faithful:,.0f}x) | corrected {corrected * 1e3:7.2f} ms ({plain / corrected:,.0f}x)"
              f" | same board as the seed: {same == board}", flush=True)
    return plain_seconds


def sweep(jobs: int, faithful: bool) -> tuple[float, int]:
    """Wall seconds for the whole seed sweep (instance making, solving and scoring) on `jobs` workers."""
    points = [(n, c) for n in SIZES for c in seed_colours(n)]
    start = time.perf_counter()
    rows = Parallel(n_jobs=jobs, batch_size=16)(
        delayed(greedy_point)(n, c, 0, faithful) for n, c in points)
    return time.perf_counter() - start, len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--colours", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; sweep on {args.jobs} worker(s)")
    plain = per_solve(args.colours, args.repeats)
    estimate = sum(plain[n] * len(seed_colours(n)) for n in SIZES)
    for faithful in (True, False):
        wall, count = sweep(args.jobs, faithful)
        name = "seed-faithful" if faithful else "corrected"
        print(f"whole seed sweep, {name} greedy: {count} solves in {wall:6.1f} s "
              f"(target < 300 s: {'met' if wall < 300 else 'NOT met'}); plain seed sweep estimated "
              f"{estimate / 3600:.1f} h on one core -> {estimate / wall:,.0f}x", flush=True)


if __name__ == "__main__":
    main()
