"""Free orientations on the 6-wide strip: success rate at 0 gaps (a perfect 6x10) and median best gaps
of each optimiser at 100,000 evaluations, 30 seeds, against random search at the same budget; and the
wall time of each optimiser's batch of seeds on all cores.

Every worker compiles (or loads) the decoder before its runs' clocks start, as
experiments/tasks/optimise.py does, so no run's seconds (or seconds budget) include compiling; the
workers are started and warmed before the harness's clock too. `--timed-seeds` and `--budget` shrink a timed repeat.

    python -m benchmarks.bench_pentomino_free [--seeds 30] [--timed-seeds 4] [--budget 100000] [--jobs -1] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics

from joblib import Parallel, delayed

from benchmarks import flags
from benchmarks.timing import compare, report
from core.space import Budget
from heuristics.ga import GA
from heuristics.minimize import minimize
from heuristics.random_search import RandomSearch
from heuristics.sa import SimulatedAnnealing
from heuristics.two_opt import TwoOpt
from puzzles.pentomino import PentominoStrip

OPTIMIZERS = {"random_search": RandomSearch, "ga": GA, "two_opt": TwoOpt, "sa": SimulatedAnnealing}


def one_run(name: str, seed: int, budget: int) -> tuple[float, float]:
    """(best gaps, run seconds) of one seeded run; the decoder is compiled before the run's clock."""
    puzzle = PentominoStrip(orientations="free")
    puzzle.fitness(puzzle.space.identity())  # compile (or load numba's cache) outside the clock
    r = minimize(puzzle.fitness, puzzle.space, OPTIMIZERS[name](), Budget(evaluations=budget, target=0), seed)
    return r.best, r.seconds


def batch(parallel: Parallel, name: str, seeds: int, budget: int) -> list[tuple[float, float]]:
    """Every seed of one optimiser, on the workers."""
    return parallel(delayed(one_run)(name, seed, budget) for seed in range(seeds))


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_pentomino_free", __doc__.splitlines()[0])
    parser.add_argument(
        "--seeds", type=flags.count, default=30, help="seeds per optimiser for the success rates"
    )
    parser.add_argument(
        "--timed-seeds", type=flags.count, default=4, help="seeds per optimiser in each timed repeat"
    )
    parser.add_argument("--budget", type=flags.count, default=100_000)
    parser.add_argument("--jobs", type=flags.jobs, default=-1)
    parser.add_argument("--repeats", type=flags.count, default=5)
    args = parser.parse_args(argv)
    if args.timed_seeds > args.seeds:
        parser.error(
            f"--timed-seeds {args.timed_seeds} is more than --seeds {args.seeds}: the timed runs repeat the "
            "first seeds' runs; give at most --seeds"
        )
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    with Parallel(n_jobs=args.jobs) as parallel:
        parallel(
            delayed(one_run)(name, s, 100) for name in OPTIMIZERS for s in range(8)
        )  # start, warm workers
        found = {name: batch(parallel, name, args.seeds, args.budget) for name in OPTIMIZERS}
        timings = compare(
            {
                name: (lambda name=name: batch(parallel, name, args.timed_seeds, args.budget))
                for name in OPTIMIZERS
            },
            repeats=args.repeats,
            warmup=0,
        )
    print(f"free orientations, width 6, {args.budget:,} evaluations, {args.seeds} seeds")
    baseline = statistics.median(b for b, _ in found["random_search"])
    for name, results in found.items():
        best = [b for b, _ in results]
        print(
            f"{name:14s} success at 0 gaps {sum(b == 0 for b in best):2d}/{len(best)}   median best "
            f"{statistics.median(best):5.1f} gaps (random search: {baseline:g}; gap ratio "
            f"{statistics.median(best) / baseline:.2f})   min {min(best):g}"
        )
        assert [b for b, _ in timings[name].result] == best[: args.timed_seeds], "seeded runs must repeat"
    print(
        f"wall time of each optimiser's first {args.timed_seeds} seeds' runs on {args.jobs} jobs "
        f"(the same runs, same bests, as above):"
    )
    report(timings)


if __name__ == "__main__":
    flags.run(main)
