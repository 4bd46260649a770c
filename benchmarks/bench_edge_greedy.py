"""Greedy speed, per core: the project's compiled greedy against the seed's plain Python greedy
(tests/oracles/seed_greedy_plain.py), and the whole seed sweep.

1. Per solve, one core, CPU seconds: the plain seed code, the project's seed-faithful and its
   corrected greedy on the same shuffled piece list (n = 13, 20 colours by default), interleaved;
   the faithful board must equal the seed's. Target: >= 100x per solve.
2. The whole seed sweep (n = 13 and 15, colours 2 .. 2n(n-1), one instance each, as the article ran
   it; 730 solves): CPU seconds on one core, and wall seconds on `--jobs` workers (target < 5
   minutes on 2 cores). The plain seed sweep is not run (hours on one core): it is extrapolated
   from `--plain-sample` plain solves per size at colour counts spread over the sweep, and the
   output labels it so.

    python -m benchmarks.bench_edge_greedy [--size 13] [--colours 20] [--sweep-sizes 13,15] [--plain-sample 2] [--jobs 2] [--repeats 5]

`--size 9` (or less) makes a per-solve repeat of the plain code short; `--plain-sample 1` halves
the extrapolation's cost; `--sweep-sizes 5` sweeps (and extrapolates) 5 x 5 boards only, a quick run.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import numpy as np
from joblib import Parallel, delayed

from benchmarks import flags
from benchmarks.timing import compare, fmt, report
from puzzles.edge_matching import turn_table
from puzzles.edge_matching.seed_sweep import greedy_point
from puzzles.edge_matching.solvers.greedy import greedy
from puzzles.edge_matching.sweep import seed_colours
from tests.oracles import seed_greedy_plain as seed

SIZES = (13, 15)
PLAIN, FAITHFUL, CORRECTED = "plain seed code", "project, seed-faithful", "project, corrected"


def seed_instance(n: int, colours: int, k: int = 0) -> list[list[int]]:
    """A shuffled piece list as the seed makes it (its generator, its shuffle), pinned by k."""
    rnd = random.Random(k)
    return seed.puzzle_making(seed.generate_puzzle(n, colours, rnd), rnd)


def project_solve(listed: list[list[int]], n: int, faithful: bool) -> list[list[int]]:
    """One compiled greedy solve with the seed's fixed centre; the board as the seed's colour lists."""
    centre = (n * n - 1) // 2
    piece, _ = greedy(turn_table(np.array(listed), False), n, [[centre, centre, 0]], seed_faithful=faithful)
    return [listed[p] for p in piece]


def per_solve(n: int, colours: int, repeats: int) -> None:
    """Print CPU seconds per solve, on one core, of the three greedies on one instance."""
    listed = seed_instance(n, colours)
    for faithful in (True, False):
        project_solve(listed, n, faithful)  # compile (or load the cache) outside the clock
    print(f"per solve, n={n}, {colours} colours, one core, CPU seconds:")
    timings = compare(
        {
            PLAIN: lambda: seed.solve([list(p) for p in listed]),
            FAITHFUL: lambda: project_solve(listed, n, True),
            CORRECTED: lambda: project_solve(listed, n, False),
        },
        repeats=repeats,
        warmup=0,
        clock=time.process_time,
    )
    assert timings[FAITHFUL].result == timings[PLAIN].result, (
        "the faithful greedy must return the seed's board"
    )
    report(timings, baseline=PLAIN, targets={FAITHFUL: "target >= 100x", CORRECTED: "target >= 100x"})
    print("(the seed-faithful board equals the seed's, cell for cell)")


def plain_cpu(n: int, colours: int) -> float:
    """CPU seconds of one plain seed solve (run in a worker; CPU time is that worker's, one core)."""
    listed = seed_instance(n, colours)
    start = time.process_time()
    seed.solve(listed)
    return time.process_time() - start


def extrapolated_plain_sweep(sample: int, jobs: int, sizes: tuple[int, ...] = SIZES) -> float:
    """CPU seconds on one core that the plain seed sweep would take: per size, the mean of `sample`
    plain solves (colour counts spread over the sweep) times the sweep's solves of that size."""
    points = [(n, c) for n in sizes for c in seed_colours(n, sample)]
    seconds = Parallel(n_jobs=jobs)(delayed(plain_cpu)(n, c) for n, c in points)
    total = 0.0
    print(f"plain seed code, extrapolation sample ({len(points)} solves, one each, CPU seconds on one core):")
    for n in sizes:
        mine = [(c, s) for (m, c), s in zip(points, seconds) if m == n]
        mean = statistics.mean(s for _, s in mine)
        total += mean * len(seed_colours(n))
        print(
            f"  n={n}: "
            + ", ".join(f"{c} colours {s:.1f} s" for c, s in mine)
            + f"; mean {mean:.1f} s x {len(seed_colours(n))} solves"
        )
    return total


def sweep(faithful: bool, jobs: int, sizes: tuple[int, ...] = SIZES) -> int:
    """The whole seed sweep (instance making, solving, scoring) on `jobs` workers (1: in this process)."""
    points = [(n, c) for n in sizes for c in seed_colours(n)]
    if jobs == 1:
        return len([greedy_point(n, c, 0, faithful) for n, c in points])
    return len(
        Parallel(n_jobs=jobs, batch_size=16)(delayed(greedy_point)(n, c, 0, faithful) for n, c in points)
    )


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_edge_greedy", __doc__.splitlines()[0])
    parser.add_argument(
        "--size", type=flags.whole(3), default=13, help="board side of the per-solve comparison"
    )
    parser.add_argument("--colours", type=flags.count, default=20)
    parser.add_argument(
        "--plain-sample", type=flags.count, default=2, help="plain solves per size for the extrapolation"
    )
    parser.add_argument(
        "--sweep-sizes",
        type=flags.wholes(3),
        default=SIZES,
        help="board sides of the whole sweep, comma-separated (the seed's: 13,15)",
    )
    parser.add_argument("--jobs", type=flags.jobs, default=2)
    parser.add_argument("--repeats", type=flags.count, default=5)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    print(f"{os.cpu_count()} cores")
    per_solve(args.size, args.colours, args.repeats)

    sizes = args.sweep_sizes
    solves = sum(len(seed_colours(n)) for n in sizes)
    print(f"whole seed sweep ({solves} solves: instance making, solving, scoring), one core, CPU seconds:")
    one_core = compare(
        {FAITHFUL: lambda: sweep(True, 1, sizes), CORRECTED: lambda: sweep(False, 1, sizes)},
        repeats=args.repeats,
        clock=time.process_time,
    )
    report(one_core)
    print(f"whole seed sweep ({solves} solves), {args.jobs} workers, wall seconds:")
    workers = compare(
        {FAITHFUL: lambda: sweep(True, args.jobs, sizes), CORRECTED: lambda: sweep(False, args.jobs, sizes)},
        repeats=args.repeats,
    )
    report(workers, targets=dict.fromkeys(workers, "target < 300 s"))

    plain = extrapolated_plain_sweep(args.plain_sample, args.jobs, sizes)
    print(
        f"plain seed sweep, EXTRAPOLATED (not run; solves only): {plain:,.0f} s = {plain / 3600:.1f} h "
        f"CPU on one core"
    )
    for name, t in one_core.items():
        print(
            f"  extrapolated ratio, one core each, plain / {name} (median {fmt(t.median)}): "
            f"{plain / t.median:,.0f}x"
        )


if __name__ == "__main__":
    flags.run(main)
