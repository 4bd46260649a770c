"""Free orientations on the 6-wide strip: success rate at 0 gaps (a perfect 6x10) and median best
gaps of each optimiser at 100,000 evaluations, 30 seeds, against random search at the same budget.

    python -m benchmarks.bench_pentomino_free [--seeds 30] [--budget 100000] [--jobs -1]
"""
from __future__ import annotations

import argparse
import statistics

from joblib import Parallel, delayed

from heuristics.ga import GA
from heuristics.minimize import minimize
from core import Budget
from heuristics.random_search import RandomSearch
from heuristics.sa import SimulatedAnnealing
from heuristics.two_opt import TwoOpt
from puzzles.pentomino import PentominoStrip

OPTIMIZERS = {"random_search": RandomSearch, "ga": GA, "two_opt": TwoOpt, "sa": SimulatedAnnealing}


def one_run(name: str, seed: int, budget: int) -> tuple[str, float, float]:
    puzzle = PentominoStrip(orientations="free")
    r = minimize(puzzle.fitness, puzzle.space, OPTIMIZERS[name](), Budget(evaluations=budget, target=0), seed)
    return name, r.best, r.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--budget", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=-1)
    args = parser.parse_args()
    results = Parallel(n_jobs=args.jobs)(delayed(one_run)(name, seed, args.budget)
                                         for name in OPTIMIZERS for seed in range(args.seeds))
    baseline = statistics.median(b for n, b, _ in results if n == "random_search")
    print(f"free orientations, width 6, {args.budget:,} evaluations, {args.seeds} seeds")
    for name in OPTIMIZERS:
        best = [b for n, b, _ in results if n == name]
        secs = statistics.median(s for n, _, s in results if n == name)
        print(f"{name:14s} success at 0 gaps {sum(b == 0 for b in best):2d}/{len(best)}   median best "
              f"{statistics.median(best):5.1f} gaps (random search: {baseline:g}; ratio "
              f"{statistics.median(best) / baseline:.2f})   min {min(best):g}   median {secs:.1f} s/run")


if __name__ == "__main__":
    main()
